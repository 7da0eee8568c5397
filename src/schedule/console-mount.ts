// The console on the daemon's port, when `console.enabled`: its signing key read from `console.signing_key`
// (relative to the config file's folder), and a warning for each approver who could not sign there.
import { createPublicKey, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Clock } from "../clock.js";
import type { Config } from "../config/index.js";
import { type ConsoleDeps, type ConsoleHandler, createConsole } from "../console/handler.js";
import { ExitCode, TopsyncError } from "../errors.js";
import type { Logger } from "../log/logger.js";
import { privateKeyFrom, publicKeyText } from "../plans/approvals.js";

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
  const signingKey = readSigningKey(options);
  const signs = signingKey ? publicKeyText(createPublicKey(signingKey)) : undefined;
  for (const [name, user] of Object.entries(config.console.users)) {
    if (user.role !== "approver") continue;
    const key = config.approvals.approvers[name];
    if (!key)
      logger.warn(
        `console: approver ${name} is not among approvals.approvers, so cannot approve in the console`,
      );
    else if (key !== signs)
      logger.warn(
        `console: approvals.approvers.${name} is not the public key of console.signing_key, so ${name} cannot approve in the console`,
      );
  }
  return createConsole({ config, logger, now: () => options.clock.now(), signingKey, ...parts });
}

function readSigningKey(options: MountOptions): KeyObject | undefined {
  const file = options.config.console.signing_key;
  if (!file) return undefined;
  const path = resolve(options.configDir, file);
  try {
    return privateKeyFrom(readFileSync(path, "utf8"));
  } catch (error) {
    throw new TopsyncError(
      "CONFIG",
      `console.signing_key: cannot read the ed25519 private key ${path}: ${(error as Error).message}`,
      ExitCode.config,
    );
  }
}
