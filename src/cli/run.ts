// `topsync run`: the daemon until SIGTERM, SIGINT or SIGHUP. The first signal stops it gracefully
// (exit 0 when everything finished within server.shutdown_grace, else 1); a second one exits at once.
// SIGHUP too: Node.js's default for it (a closed terminal, a `kill -HUP` meant as "reload") is to die on the spot,
// leaving what was in flight in submitting; topsync does not reload its config, so it stops as it does on SIGTERM.
import { dirname } from "node:path";
import { systemClock } from "../clock.js";
import { ExitCode } from "../errors.js";
import { runService } from "../schedule/service.js";
import type { CommandContext } from "./context.js";

const SIGNAL_EXIT: Record<string, number> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

export async function runCommand(ctx: CommandContext): Promise<void> {
  const stop = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (stop.signal.aborted) {
      ctx.logger.warn(`${signal} again: exiting now`);
      process.exit(SIGNAL_EXIT[signal] ?? ExitCode.failure);
    }
    ctx.logger.info(
      signal === "SIGHUP"
        ? "SIGHUP: stopping (topsync does not reload its config: start it again to read a changed one; send it again to exit at once)"
        : `${signal}: stopping (send it again to exit at once)`,
    );
    stop.abort();
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  process.on("SIGHUP", onSignal);
  // A background task that fails unobserved (a verification writing while the database is away) must not end
  // the daemon: the ledger keeps the row, and the next sweep picks it up. After a stop it is only noise.
  process.on("unhandledRejection", (error) => {
    if (stop.signal.aborted) ctx.logger.debug({ err: error }, "after stop");
    else ctx.logger.error({ err: error }, `unexpected failure in the background: ${String(error)}`);
  });
  // An exception nothing can catch leaves the process in an unknown state: say so and exit for the supervisor
  // to restart it. The ledger is safe: what this process left in submitting becomes in_doubt at a sweep.
  process.on("uncaughtException", (error) => {
    ctx.logger.fatal(
      { err: error },
      `exiting after an unexpected error: ${error.message}${driverHint(error)}`,
    );
    process.exit(ExitCode.failure);
  });
  try {
    const outcome = await runService(
      {
        config: ctx.config,
        configDir: dirname(ctx.configFile),
        databaseUrl: process.env.DATABASE_URL,
        logger: ctx.logger,
        clock: systemClock,
      },
      stop.signal,
    );
    if (!outcome.clean) process.exitCode = ExitCode.failure;
  } finally {
    // Timers of abandoned work must not keep the process alive after a stop.
    if (stop.signal.aborted) setTimeout(() => process.exit(), 1000).unref();
  }
}

/** postgres.js 3.4 throws from a timer when the server drops a connection a write was queued for. */
function driverHint(error: Error): string {
  return /reading 'write'/.test(error.message) && /nextWrite/.test(error.stack ?? "")
    ? " (a known bug of the PostgreSQL driver when the database drops connections: porsager/postgres#1208)"
    : "";
}
