// Sections built only when a config has them (src/config/fields.ts, optionalSection): absent, each is its
// defaults, which must stay what its schema makes of `{}`; present, it is checked by its schema as before.
import { describe, expect, it, vi } from "vitest";
import * as z from "zod";
import { approvalsDefaults, buildApprovalsSchema } from "../../src/config/approvals.js";
import { buildConsoleSchema, consoleDefaults } from "../../src/config/console.js";
import { optionalSection } from "../../src/config/fields.js";
import { buildNotificationsSchema, notificationsDefaults } from "../../src/config/notifications.js";
import { issues, load, yaml } from "./helpers.js";

const HASH = "scrypt$16384$8$1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA==";

const SECTIONS = [
  { name: "approvals", build: buildApprovalsSchema, defaults: approvalsDefaults },
  { name: "notifications", build: buildNotificationsSchema, defaults: notificationsDefaults },
  { name: "console", build: buildConsoleSchema, defaults: consoleDefaults },
] as const;

describe("sections built only when a config has them", () => {
  for (const { name, build, defaults } of SECTIONS) {
    it(`${name}: the defaults of a config without it are what its schema makes of {}`, () => {
      expect(defaults()).toEqual(build().parse({}));
    });

    it(`${name}: a config without it equals one with "${name}: {}"`, () => {
      const without = load(yaml()).config;
      const empty = load(yaml(`${name}: {}`)).config;
      expect(without).toEqual(empty);
      expect(without[name]).toEqual(defaults());
    });
  }

  it("gives each config its own defaults, not one object shared between configs", () => {
    const first = load(yaml()).config;
    first.notifications.budget_thresholds.push(10);
    first.approvals.rules.push({ deletes: 1 });
    const second = load(yaml()).config;
    expect(second.notifications.budget_thresholds).toEqual([50, 75, 90, 100]);
    expect(second.approvals.rules).toEqual([]);
  });

  it("checks a section that is there with its own schema: its issues at its own lines and paths", () => {
    expect(issues(yaml("console:", "  enabled: true", "  public_url: https://ops.example.com"))).toEqual([
      "config.yaml:7:1: console.users: the console is enabled but has no users; add one (name: {password_hash, role}) with a hash from `topsync console hash-password`",
    ]);
    expect(issues(yaml("notifications:", "  channels: {s: {type: slack}}"))).toEqual([
      "config.yaml:8:14: notifications.channels.s.url: is required",
    ]);
    expect(issues(yaml("approvals:", "  plan_ttl: 5s", "  bogus: 1"))).toEqual([
      'config.yaml:8:13: approvals.plan_ttl: must be at least 60000ms, got "5s"',
      "config.yaml:9:3: approvals.bogus: unknown key (allowed here: rules, approvers, plan_ttl)",
    ]);
    expect(issues(yaml("notifications: []"))).toEqual([
      "config.yaml:7:16: notifications: expected a mapping, got a list",
    ]);
  });

  it("refuses a console on a non-loopback address without console.public_url, whose Origin check would trust the Host header", () => {
    const users = `  users: { ada: { password_hash: "${HASH}", role: operator } }`;
    const refusal =
      "console.public_url: the console is enabled on server.host 0.0.0.0, which is not a loopback address, and console.public_url is not set: a POST's Origin would have nothing to be checked against but the request's own Host header, which any client (or a rebound DNS name) sets. Set console.public_url to the address people open the console at (e.g. https://ops.example.com/console), or bind server.host to 127.0.0.1 and reach it through a tunnel or a proxy";
    expect(issues(yaml("console:", "  enabled: true", users))).toEqual([`config.yaml:7:1: ${refusal}`]);
    expect(issues(yaml("server: { host: 10.0.0.5 }", "console:", "  enabled: true", users))).toEqual([
      `config.yaml:8:1: ${refusal.replace("0.0.0.0", "10.0.0.5")}`,
    ]);
    for (const host of ["127.0.0.1", "localhost", "::1", "127.0.0.53"])
      expect(
        load(yaml(`server: { host: "${host}" }`, "console:", "  enabled: true", users)).config.console
          .enabled,
      ).toBe(true);
    expect(
      load(yaml("console:", "  enabled: true", "  public_url: https://ops.example.com/console", users)).config
        .console.public_url,
    ).toBe("https://ops.example.com/console");
    // A console that is off needs neither.
    expect(load(yaml("console: { enabled: false }")).config.console.enabled).toBe(false);
  });

  it("refuses a console path of slashes only, which would have taken every path of the server", () => {
    // "//" is not "/", so it passed; the console's base is the path without its trailing slashes, "", and the
    // console then answered /healthz, /readyz and /metrics with its login page.
    for (const path of ["//", "///"])
      expect(issues(yaml("console:", `  path: "${path}"`))).toEqual([
        "config.yaml:8:9: console.path: must be a path of its own (not /, /healthz, /readyz or /metrics)",
      ]);
  });

  it("says what is wrong with a user, approver or channel name, not only that the key is invalid", () => {
    // zod names a record key that fails its schema "Invalid key in record", and the rule the key broke was lost.
    const long = "a".repeat(65);
    expect(
      issues(yaml("console:", "  users:", `    ${long}: { password_hash: "${HASH}", role: viewer }`)),
    ).toEqual([
      `config.yaml:9:72: console.users.${long}: a user's name is 1 to 64 letters, digits, . _ -, starting with a letter or digit`,
    ]);
    expect(issues(yaml("approvals:", "  approvers:", "    'ada lovelace': ed25519:x"))).toEqual([
      `config.yaml:9:21: approvals.approvers["ada lovelace"]: an approver's name is 1 to 64 letters, digits, . _ -, starting with a letter or digit`,
    ]);
    expect(
      issues(
        yaml("notifications:", "  channels:", "    Ops: { type: slack, url: https://hooks.example.com/x }"),
      ),
    ).toEqual([
      "config.yaml:9:10: notifications.channels.Ops: a channel name is lower case letters, digits, '.', '_' or '-', starting with a letter or digit",
    ]);
  });

  it("builds a section's schema the first time a config has the section, and once", () => {
    const build = vi.fn(() => z.strictObject({ size: z.int().prefault(3) }));
    const schema = z.strictObject({ section: optionalSection(build, () => ({ size: 3 })) });
    expect(schema.parse({})).toEqual({ section: { size: 3 } });
    expect(build).not.toHaveBeenCalled();
    expect(schema.parse({ section: { size: 5 } })).toEqual({ section: { size: 5 } });
    expect(schema.parse({ section: {} })).toEqual({ section: { size: 3 } });
    expect(build).toHaveBeenCalledTimes(1);
    expect(schema.safeParse({ section: { size: "x" } }).error?.issues[0]?.path).toEqual(["section", "size"]);
  });
});
