// A config file on disk for CLI tests: the sandbox, a database, and whatever else a test adds.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import type { Sandbox } from "../../src/sandbox/index.js";

export function writeConfigFile(
  sandbox: Sandbox,
  databaseUrl: string,
  extra: Record<string, unknown> = {},
): { file: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "topsync-test-"));
  const config = {
    reseller: {
      base_url: sandbox.resellerUrl,
      api_key: sandbox.apiKey,
      timeout: { connect: "1s", headers: "2s", body: "2s" },
      concurrency: 16,
      rate_limit: 10_000,
      retry: { max_attempts: 4, base_delay: "5ms", max_delay: "20ms" },
    },
    analytics: { base_url: sandbox.analyticsUrl, api_key: sandbox.analyticsApiKey },
    database: { url: databaseUrl, pglite_dir: join(dir, "pglite") },
    verification: { initial_delay: "5ms", timeout: "3s", max_interval: "20ms", horizon: "72h" },
    ...extra,
  };
  const file = join(dir, "config.yaml");
  writeFileSync(file, stringify(config));
  return { file, dir };
}
