// The login throttle on its own, with a clock the test moves: an IPv6 host is one source however many of its /64's
// addresses it uses, a stranger's wrong passwords lock a name for that stranger only, and a real user's failures stay
// counted however many made-up names fail after them.
import { describe, expect, it } from "vitest";
import { LoginThrottle } from "../../src/console/throttle.js";
import { sourceKey } from "../../src/source-address.js";

const limits = { perUser: 5, perSource: 20, windowMs: 15 * 60_000 };

describe("the login throttle", () => {
  it("counts an IPv6 source by its /64, and an IPv4-mapped address as its IPv4 address", () => {
    const throttle = new LoginThrottle(limits, () => 1_000_000, ["ada"]);
    for (let i = 1; i <= 20; i++) throttle.failed(`name${i}`, `2001:db8:1:2::${i.toString(16)}`);
    expect(throttle.wait("another", "2001:db8:1:2:ffff:ffff:ffff:ffff")).toBeGreaterThan(0);
    expect(throttle.wait("another", "2001:0db8:0001:0002:0:0:0:77%eth0")).toBeGreaterThan(0);
    expect(throttle.wait("another", "2001:db8:1:3::1")).toBe(0);
    for (let i = 1; i <= 20; i++) throttle.failed(`v4name${i}`, "::ffff:192.0.2.7");
    expect(throttle.wait("another", "192.0.2.7")).toBeGreaterThan(0);
    expect(sourceKey("::1")).toBe("0:0:0:0::/64");
    expect(sourceKey("::ffff:c000:207")).toBe("0:0:0:0::/64");
    expect(sourceKey("64:ff9b::192.0.2.1")).toBe("64:ff9b:0:0::/64");
  });

  it("locks a name for the source that failed it, not for the user's own address; from many sources, everywhere", () => {
    let now = 1_000_000;
    const throttle = new LoginThrottle(limits, () => now, ["ada"]);
    for (let i = 0; i < 5; i++) throttle.failed("ada", "198.51.100.1"); // a stranger tries ada's password
    expect(throttle.wait("ada", "198.51.100.1")).toBeGreaterThan(0);
    expect(throttle.wait("ADA", "198.51.100.1")).toBeGreaterThan(0);
    expect(throttle.wait("ada", "203.0.113.9")).toBe(0); // ada, at her own desk, still logs in
    expect(throttle.wait("bola", "198.51.100.1")).toBe(0); // the stranger's other names: the source limit (20)
    // A guesser spread over addresses, each within its limit: the name is locked everywhere after 10 × 5.
    for (let source = 2; source <= 10; source++)
      for (let i = 0; i < 5; i++) throttle.failed("ada", `198.51.100.${source}`);
    expect(throttle.wait("ada", "203.0.113.9")).toBeGreaterThan(0);
    now += limits.windowMs;
    expect(throttle.wait("ada", "203.0.113.9")).toBe(0);
    expect(throttle.wait("ada", "198.51.100.1")).toBe(0);
  });

  it("forgets a user's failures from a source when the right password comes from it, not those from elsewhere", () => {
    const throttle = new LoginThrottle(limits, () => 1_000_000, ["ada"]);
    for (let i = 0; i < 4; i++) throttle.failed("ada", "203.0.113.9");
    for (let i = 0; i < 5; i++) throttle.failed("ada", "198.51.100.1");
    throttle.succeeded("ada", "203.0.113.9");
    for (let i = 0; i < 4; i++) throttle.failed("ada", "203.0.113.9");
    expect(throttle.wait("ada", "203.0.113.9")).toBe(0);
    expect(throttle.wait("ada", "198.51.100.1")).toBeGreaterThan(0);
  });

  it("keeps a configured user's failures however many other names fail after them", () => {
    const throttle = new LoginThrottle(limits, () => 1_000_000, ["Ada"]);
    for (let source = 1; source <= 10; source++)
      for (let i = 0; i < 5; i++) throttle.failed("ada", `198.51.100.${source}`);
    expect(throttle.wait("ada", "203.0.113.9")).toBeGreaterThan(0);
    // Many sources, each within its own limit, each failing with made-up names.
    for (let source = 0; source < 600; source++)
      for (let i = 0; i < 20; i++)
        throttle.failed(`made-up-${source}-${i}`, `10.0.${source >> 8}.${source & 255}`);
    expect(throttle.wait("ada", "203.0.113.9")).toBeGreaterThan(0);
  });
});
