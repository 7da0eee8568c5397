// What every command starts from: the global flags, the loaded config, a logger, and lazily built clients.
import type { AnalyticsClient } from "../analytics/client.js";
import type { Config } from "../config/index.js";
import { loadConfig } from "../config/index.js";
import { createLogger, type Logger } from "../log/logger.js";
import type { ResellerClient } from "../reseller/client.js";
import { mark } from "../timings.js";

export interface GlobalOptions {
  config: string;
  logLevel?: string;
  json?: boolean;
}

export interface CommandContext {
  globals: GlobalOptions;
  config: Config;
  configFile: string;
  logger: Logger;
  /** The service clients, made (and their modules loaded) on first use: most commands call no service. */
  reseller(): Promise<ResellerClient>;
  analytics(): Promise<AnalyticsClient>;
  /** Runs at the end of the command, in reverse order: closes pools, databases, servers. */
  defer(cleanup: () => Promise<void> | void): void;
  close(): Promise<void>;
}

export async function openContext(
  globals: GlobalOptions,
  override?: (config: Config) => Config,
): Promise<CommandContext> {
  const loaded = await loadConfig(globals.config, process.env);
  mark("config");
  const config = override ? override(loaded.config) : loaded.config;
  const logger = createLogger({ level: globals.logLevel ?? config.log.level });
  for (const warning of loaded.warnings) {
    logger.warn(`${warning.file}:${warning.line}:${warning.column}: ${warning.path}: ${warning.message}`);
  }
  return contextFrom(globals, config, loaded.file, logger);
}

export function contextFrom(
  globals: GlobalOptions,
  config: Config,
  configFile: string,
  logger: Logger,
): CommandContext {
  const cleanups: Array<() => Promise<void> | void> = [];
  let reseller: Promise<ResellerClient> | undefined;
  let analytics: Promise<AnalyticsClient> | undefined;
  const context: CommandContext = {
    globals,
    config,
    configFile,
    logger,
    reseller() {
      reseller ??= import("../clients.js").then(({ createResellerClient }) => {
        const client = createResellerClient(config.reseller, { logger });
        // Asked for because the command calls the service: its HTTP client loads while the command goes on.
        client.http.open();
        cleanups.push(() => closeUnwaited(client));
        return client;
      });
      return reseller;
    },
    analytics() {
      analytics ??= import("../clients.js").then(({ createAnalyticsClient }) => {
        const client = createAnalyticsClient(config.analytics, { logger });
        client.http.open();
        cleanups.push(() => closeUnwaited(client));
        return client;
      });
      return analytics;
    },
    defer(cleanup) {
      cleanups.push(cleanup);
    },
    async close() {
      for (const cleanup of cleanups.reverse()) await cleanup();
      cleanups.length = 0;
    },
  };
  return context;
}

/**
 * A service's client at the command's end: told to close (its idle connections end), not waited for. Waiting adds
 * the closing of every kept-alive connection, some 5 ms, to every command that called the service, for nothing: the
 * process exits right after (src/cli.ts), and a request still in flight then, which happens only after the command
 * failed, is cut as a kill would cut it. As the ledger is closed (database.ts).
 */
function closeUnwaited(client: { close(): Promise<void> }): void {
  client.close().catch(() => {});
}
