// Builders for config tests: a minimal valid head whose line numbers are fixed, and issue lines as text.
import { ConfigError, formatIssue, type LoadedConfig, parseConfig } from "../../src/config/index.js";

/** Lines 1–6 of every test config; sections added by a test start on line 7. */
export const HEAD = [
  "reseller:",
  "  base_url: http://127.0.0.1:4010",
  "  api_key: sk-test-reseller-0042",
  "analytics:",
  "  base_url: http://127.0.0.1:4020",
  "  api_key: sk-test-analytics-0042",
];

export function yaml(...lines: string[]): string {
  return `${[...HEAD, ...lines].join("\n")}\n`;
}

export function load(text: string, env: NodeJS.ProcessEnv = {}): LoadedConfig {
  return parseConfig(text, "config.yaml", env);
}

/** The issues of an invalid config, one formatted line each; fails the test when the config is valid. */
export function issues(text: string, env: NodeJS.ProcessEnv = {}): string[] {
  try {
    parseConfig(text, "config.yaml", env);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map(formatIssue);
    throw error;
  }
  throw new Error("expected the config to be invalid");
}
