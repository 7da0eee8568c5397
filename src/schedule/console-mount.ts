// The console on the daemon's port, when `console.enabled`: its signing key read from `console.signing_key`
// (relative to the config file's folder), and a warning for each approver who could not sign there.
import type { Clock } from "../clock.js";
import type { Config } from "../config/index.js";
import { type ConsoleDeps, type ConsoleHandler, createConsole } from "../console/handler.js";
import { approverProblems, readSigningKey } from "../console/settings.js";
import type { Logger } from "../log/logger.js";

interface MountOptions {
  config: Config;
  configDir: string;
  logger: Logger;
  clock: Clock;
}

export function startConsole(
  options: MountOptions,
  parts: Pick<ConsoleDeps, "database" | "reseller" | "analytics" | "onAction">,
): ConsoleHandler {
  const { config, logger } = options;
  const signingKey = readSigningKey(config, options.configDir);
  for (const problem of approverProblems(config, signingKey)) logger.warn(`console: ${problem}`);
  return createConsole({ config, logger, now: () => options.clock.now(), signingKey, ...parts });
}
