// A validated Config for tests, pointed at a sandbox, built through the real loader from YAML text.
import { stringify } from "yaml";
import { type Config, parseConfig } from "../../src/config/index.js";
import type { Sandbox } from "../../src/sandbox/index.js";

export function testConfig(sandbox: Sandbox, extra: Record<string, unknown> = {}): Config {
  const base = {
    reseller: {
      base_url: sandbox.resellerUrl,
      api_key: sandbox.apiKey,
      timeout: { connect: "1s", headers: "2s", body: "2s" },
      concurrency: 8,
      rate_limit: 10_000,
      retry: { max_attempts: 4, base_delay: "5ms", max_delay: "20ms" },
    },
    analytics: {
      base_url: sandbox.analyticsUrl,
      api_key: sandbox.analyticsApiKey,
      timeout: "2s",
      rate_limit: 10_000,
      retry: { max_attempts: 3, base_delay: "5ms", max_delay: "20ms" },
    },
    verification: { initial_delay: "5ms", timeout: "2s", max_interval: "20ms", horizon: "72h" },
    ...extra,
  };
  return parseConfig(stringify(base), "test-config.yaml", {}).config;
}
