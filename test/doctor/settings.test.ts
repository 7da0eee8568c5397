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

  it("never see a webhook path the daemon answers itself: the config refuses it", () => {
    expect(() => config("webhooks: { enabled: true, secret: s3cret-value, path: /metrics/hook }")).toThrow(
      "webhooks.path: must be a path of its own (not /, /healthz, /readyz or /metrics)",
    );
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
