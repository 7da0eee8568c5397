import { describe, expect, it } from "vitest";
import { domainProblem, normaliseDomain, privacyCode, privacyName } from "../../src/config/index.js";

describe("normaliseDomain", () => {
  it.each([
    ["example.com", "example.com"],
    ["Example.COM", "example.com"],
    ["https://www.example.com/", "example.com"],
    ["http://example.com/some/path?q=1#top", "example.com"],
    ["www.example.com.", "example.com"],
    ["  shop.example.com  ", "shop.example.com"],
    ["//cdn.example.com", "cdn.example.com"],
    ["wwwexample.com", "wwwexample.com"],
    ["sub.www.example.com", "sub.www.example.com"],
    ["bücher.example", "xn--bcher-kva.example"],
    // full-width letters and ideographic dots become ASCII first, then lose www. and the trailing dot
    ["ＷＷＷ.example.com", "example.com"],
    ["www。example.com", "example.com"],
    ["example.com。", "example.com"],
    ["www.Bücher.example．", "xn--bcher-kva.example"],
  ])("%s → %s", (text, expected) => {
    expect(normaliseDomain(text)).toBe(expected);
  });

  it("is idempotent", () => {
    for (const text of [
      "https://www.Example.com/",
      "a.b.c.",
      "bücher.example",
      "ＷＷＷ.example.com",
      "www。example.com",
    ]) {
      expect(normaliseDomain(normaliseDomain(text))).toBe(normaliseDomain(text));
    }
  });
});

describe("domainProblem", () => {
  it("accepts hostnames with a dot up to 255 characters", () => {
    expect(domainProblem("example.com")).toBeUndefined();
    expect(domainProblem("a-b.c0.example")).toBeUndefined();
    expect(
      domainProblem(`${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(61)}`),
    ).toBeUndefined();
  });

  it("names what is wrong", () => {
    expect(domainProblem("")).toBe("is empty");
    expect(domainProblem("example")).toBe("needs at least one dot");
    expect(domainProblem(`${"a.".repeat(128)}com`)).toBe("is longer than 255 characters");
    expect(domainProblem("-a.com")).toMatch(/invalid label "-a"/);
    expect(domainProblem("example.com:8080")).toMatch(/invalid label "com:8080"/);
  });
});

describe("privacy mapping", () => {
  it("maps names, codes and code text to the service's codes and back", () => {
    expect(["public", "private", "password", 0, 1, 2, "0", "1", "2"].map(privacyCode)).toEqual([
      0, 1, 2, 0, 1, 2, 0, 1, 2,
    ]);
    expect(privacyCode("Public")).toBeUndefined();
    expect(privacyCode(3)).toBeUndefined();
    expect(privacyCode("toString")).toBeUndefined();
    expect(([0, 1, 2] as const).map(privacyName)).toEqual(["public", "private", "password"]);
  });
});
