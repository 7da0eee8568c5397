// `topsync doctor`: whether this installation can work, check by check. With `quick`, only what a container's
// healthcheck or a startup probe can afford every few seconds: no call to either service (the analytics service
// allows 60 requests a minute).
import { dirname } from "node:path";
import { type Clock, systemClock } from "../clock.js";
import { ConfigError, checkConfigFiles, type LoadedConfig, loadConfig } from "../config/index.js";
import type { Logger } from "../log/logger.js";
import { type CheckResult, type DoctorReport, fail, pass, type SettingsCheck, skip, warn } from "./check.js";
import { checkDatabase } from "./database.js";
import { checkServices } from "./services.js";
import { checkTimeZone, checkWebhooks } from "./settings.js";

export type { CheckResult, CheckStatus, DoctorReport, SettingsCheck } from "./check.js";

export interface DoctorOptions {
  configFile: string;
  env: NodeJS.ProcessEnv;
  quick: boolean;
  logger: Logger;
  clock?: Clock;
  /** Checks of settings kept by parts above this one (the web console), run after doctor's own. */
  settingsChecks?: readonly SettingsCheck[];
}

export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const clock = options.clock ?? systemClock;
  const loaded = await readConfig(options.configFile, options.env);
  const checks: CheckResult[] = [loaded.result];
  const report = (): DoctorReport => ({
    ok: checks.every((c) => c.status !== "fail"),
    quick: options.quick,
    config: loaded.file ?? options.configFile,
    checks,
  });
  if (!loaded.config) {
    checks.push(skip("everything else", "needs a valid config"));
    return report();
  }
  const { config } = loaded.config;
  checks.push(checkTimeZone(config, new Date(clock.now())));
  checks.push(...checkWebhooks(config));
  const configDir = dirname(loaded.file ?? options.configFile);
  for (const check of options.settingsChecks ?? []) checks.push(...(await check(config, configDir)));
  checks.push(
    ...(await checkDatabase({
      url: config.database.url || options.env.DATABASE_URL || "",
      pgliteDir: config.database.pglite_dir,
      quick: options.quick,
    })),
  );
  if (options.quick) checks.push(skip("services", "not called by --quick"));
  else checks.push(...(await checkServices(config, options.logger, clock)));
  return report();
}

interface ReadConfig {
  result: CheckResult;
  file?: string;
  config?: LoadedConfig;
}

async function readConfig(file: string, env: NodeJS.ProcessEnv): Promise<ReadConfig> {
  const fix = "correct what is named (file:line:column), then run `topsync config check`";
  try {
    const loaded = await loadConfig(file, env);
    const issues = await checkConfigFiles(loaded);
    if (issues.length > 0) throw new ConfigError(issues);
    const summary = `${loaded.file} is valid: ${loaded.config.purchases.length} purchase jobs, ${loaded.config.websites.items.length} websites`;
    const result =
      loaded.warnings.length > 0
        ? warn(
            "config",
            `${summary}, ${loaded.warnings.length} warnings (topsync config check shows them)`,
            fix,
          )
        : pass("config", summary);
    return { result, file: loaded.file, config: loaded };
  } catch (error) {
    if (error instanceof ConfigError) return { result: fail("config", error.message, fix) };
    throw error;
  }
}
