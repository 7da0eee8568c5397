// A one-shot command that buys (`purchases run`, `apply`, `jobs backfill`, `buy`) stops on SIGINT, SIGTERM or SIGHUP as the daemon does
// (src/cli/run.ts): the first signal stops new claims and lets the calls in flight finish and be recorded, so
// nothing is left in submitting to become in_doubt; a second one exits at once. Node.js's default was to die on
// the spot (Ctrl-C, a timer's or `timeout`'s SIGTERM, a closed session's SIGHUP) with purchases sent and unrecorded.
import { ExitCode, TopsyncError } from "../errors.js";
import type { Logger } from "../log/logger.js";

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
const SIGNAL_EXIT: Record<string, number> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

/** Aborts `stop` (its reason: the signal's name) on the first signal; returns what removes the handlers. */
export function stopOnSignals(logger: Logger, stop: AbortController): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    if (stop.signal.aborted) {
      logger.warn(`${signal} again: exiting now`);
      process.exit(SIGNAL_EXIT[signal] ?? 1);
    }
    logger.warn(
      `${signal}: stopping: no new claims; the calls in flight finish and are recorded (send it again to exit at once)`,
    );
    stop.abort(signal);
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  return () => {
    for (const signal of SIGNALS) process.off(signal, onSignal);
  };
}

/** The error a command ends with once a signal stopped it: what happened to its purchases, and what to do next. */
export function stoppedBySignal(signal: AbortSignal, next: string): TopsyncError {
  return new TopsyncError(
    "RUN_STOPPED",
    `the run stopped: ${String(signal.reason)}: what it sent is recorded; what it had not sent is not bought (${next})`,
    ExitCode.failure,
  );
}
