// The limits of the daemon's port in config: defaults an exposed port can live with, and values an operator
// may change within bounds the server can honour.
import { describe, expect, it } from "vitest";
import { issues, load, yaml } from "./helpers.js";

describe("server and webhook limits", () => {
  it("have safe defaults and take an operator's values", () => {
    const defaults = load(yaml()).config;
    expect(defaults.server).toMatchObject({
      max_connections: 512,
      max_connections_per_source: 128,
      headers_timeout: 10_000,
    });
    expect(defaults.webhooks).toMatchObject({ body_timeout: 10_000, max_per_source: 64 });
    const set = load(
      yaml(
        "server: { max_connections: 2000, max_connections_per_source: 16, headers_timeout: 5s }",
        "webhooks: { enabled: true, secret: s3cret-value, body_timeout: 30s, max_per_source: 8 }",
      ),
    ).config;
    expect(set.server).toMatchObject({
      max_connections: 2000,
      max_connections_per_source: 16,
      headers_timeout: 5000,
    });
    expect(set.webhooks).toMatchObject({ body_timeout: 30_000, max_per_source: 8 });
  });

  it("refuse values the server cannot honour", () => {
    expect(
      issues(
        yaml(
          "server: { max_connections: 0, headers_timeout: 2h, max_connections_per_source: 0 }",
          "webhooks: { enabled: true, secret: s3cret-value, body_timeout: 0s, max_per_source: 0 }",
        ),
      ),
    ).toEqual([
      "config.yaml:7:28: server.max_connections: expected a whole number from 1 to 100000, got 0",
      "config.yaml:7:48: server.headers_timeout: must be at most 1h",
      "config.yaml:7:80: server.max_connections_per_source: expected a whole number from 1 to 100000, got 0",
      'config.yaml:8:64: webhooks.body_timeout: must be at least 1ms, got "0s"',
      "config.yaml:8:84: webhooks.max_per_source: expected a whole number from 1 to 10000, got 0",
    ]);
  });
});
