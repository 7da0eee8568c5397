// The console on the daemon's port, when `console.enabled`: its signing keys read from each approver's own and
// (relative to the config file's folder), and a warning for each approver who could not sign there.
import type { Clock } from "../clock.js";
import type { Config } from "../config/index.js";
import { type ConsoleDeps, type ConsoleHandler, createConsole } from "../console/handler.js";
import { approverProblems, readSigningKeys } from "../console/settings.js";
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
  const signingKeys = readSigningKeys(config, options.configDir);
  for (const problem of approverProblems(config, signingKeys)) logger.warn(`console: ${problem}`);
  return createConsole({ config, logger, now: () => options.clock.now(), signingKeys, ...parts });
}
