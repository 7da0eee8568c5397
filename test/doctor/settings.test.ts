// The settings doctor checks without the network: the time zone, and whether the webhook receiver's settings
// fit together on the daemon's port.
import { describe, expect, it } from "vitest";
import { type Config, parseConfig } from "../../src/config/index.js";
import { checkTimeZone, checkWebhooks } from "../../src/doctor/settings.js";
import { yaml } from "../config/helpers.js";

function config(...lines: string[]): Config {
  return parseConfig(yaml(...lines), "config.yaml", {}).config;
}

describe("doctor's settings checks", () => {
  it("say the time zone and the time there", () => {
    const result = checkTimeZone(config("timezone: Africa/Lagos"), new Date("2026-03-10T09:05:00Z"));
    expect(result).toEqual({
      name: "timezone",
      status: "pass",
      message: "Africa/Lagos: it is 10 Mar 2026, 10:05 GMT+1 there (the budget day and schedules use it)",
    });
  });

  it("pass webhooks that are off, or on with settings that fit", () => {
    expect(checkWebhooks(config()).map((c) => c.status)).toEqual(["pass"]);
    const on = checkWebhooks(
      config("webhooks: { enabled: true, secret: s3cret-value, allow_from: [203.0.113.0/24] }"),
    );
    expect(on).toEqual([
      {
        name: "webhooks",
        status: "pass",
        message: "the receiver takes sha256 signatures on /webhooks/reseller, from 1 allowed source ranges",
      },
    ]);
  });

  it("fail a webhook path the daemon answers itself", () => {
    const [result] = checkWebhooks(
      config("webhooks: { enabled: true, secret: s3cret-value, path: /metrics/hook }"),
    );
    expect(result?.status).toBe("fail");
    expect(result?.message).toBe("webhooks.path /metrics/hook is /metrics, which the daemon answers itself");
  });

  it("fail a webhook path inside the console's, or a console inside the webhook path", () => {
    // The receiver is asked first: a webhooks.path under console.path (/console/login) took the console's login
    // page, and a console under a token-in-path receiver's path lost every page to it.
    const users =
      "public_url: 'https://ops.example.com', users: { ada: { password_hash: 'scrypt$1$1$1$a$b', role: viewer } }";
    const [inside] = checkWebhooks(
      config(
        "webhooks: { enabled: true, secret: s3cret-value, path: /console/login }",
        `console: { enabled: true, ${users} }`,
      ),
    );
    expect(inside?.status).toBe("fail");
    expect(inside?.message).toBe(
      "webhooks.path /console/login is under console.path /console: the receiver would answer the console's pages",
    );
    const [around] = checkWebhooks(
      config(
        "webhooks: { enabled: true, auth: token, token_in: path, secret: s3cret-value, path: /ops }",
        `console: { enabled: true, path: /ops/console, ${users} }`,
      ),
    );
    expect(around?.status).toBe("fail");
    expect(around?.message).toBe(
      "console.path /ops/console is under webhooks.path /ops, whose receiver takes every path below it: the receiver would answer the console's pages",
    );
    // A console that is off, or beside the receiver, is no matter.
    for (const console of [
      `console: { enabled: false }`,
      `console: { enabled: true, path: /consoles, ${users} }`,
    ])
      expect(
        checkWebhooks(
          config("webhooks: { enabled: true, secret: s3cret-value, path: /console/x }", console),
        )[0]?.status,
      ).not.toBe("fail");
  });

  it("warn on a loopback host, token settings under hmac, and deliveries from anywhere", () => {
    const results = checkWebhooks(
      config(
        "server: { host: 127.0.0.1 }",
        "webhooks: { enabled: true, secret: s3cret-value, token_in: path }",
      ),
    );
    expect(results.map((r) => [r.status, r.message.split(":")[0]])).toEqual([
      ["warn", "the receiver listens on 127.0.0.1 (server.host)"],
      ["warn", "webhooks.token_in is path, but webhooks.auth is hmac"],
      ["warn", "webhooks.allow_from is empty"],
    ]);
    for (const result of results) expect(result.fix).toBeTruthy();
  });
});
