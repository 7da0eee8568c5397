// Configs for tests, pointed at a sandbox and built through the real loader: as a value, or as a file on
// disk for CLI tests.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { type Config, parseConfig } from "../../src/config/index.js";
import type { Sandbox } from "../../src/sandbox/index.js";

/** The config document (as YAML would hold it) for a sandbox, with short timeouts and retry delays. */
export function sandboxSettings(sandbox: Sandbox, concurrency = 8): Record<string, unknown> {
  return {
    reseller: {
      base_url: sandbox.resellerUrl,
      api_key: sandbox.apiKey,
      timeout: { connect: "1s", headers: "2s", body: "2s" },
      concurrency,
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
  };
}

export function testConfig(sandbox: Sandbox, extra: Record<string, unknown> = {}): Config {
  return parseConfig(stringify({ ...sandboxSettings(sandbox), ...extra }), "test-config.yaml", {}).config;
}

/** A config file on disk for CLI tests: the sandbox, a database, and whatever else a test adds. */
export function writeConfigFile(
  sandbox: Sandbox,
  databaseUrl: string,
  extra: Record<string, unknown> = {},
): { file: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "topsync-test-"));
  const settings = sandboxSettings(sandbox, 16);
  const config = {
    ...settings,
    database: { url: databaseUrl, pglite_dir: join(dir, "pglite") },
    verification: { initial_delay: "5ms", timeout: "3s", max_interval: "20ms", horizon: "72h" },
    ...extra,
  };
  const file = join(dir, "config.yaml");
  writeFileSync(file, stringify(config));
  return { file, dir };
}
