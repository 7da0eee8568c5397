// A one-shot command that buys (`purchases run`, `apply`, `jobs backfill`, `buy`) stops on SIGINT, SIGTERM or SIGHUP as the daemon does
// (src/cli/run.ts): the first signal stops new claims and lets the calls in flight finish and be recorded, so
// nothing is left in submitting to become in_doubt; a second one exits at once. Node.js's default was to die on
// the spot (Ctrl-C, a timer's or `timeout`'s SIGTERM, a closed session's SIGHUP) with purchases sent and unrecorded.
import { ExitCode, TopsyncError } from "../errors.js";
import type { Logger } from "../log/logger.js";

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
const SIGNAL_EXIT: Record<string, number> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

/**
 * Runs `body` with a signal the first SIGINT, SIGTERM or SIGHUP aborts (a second exits at once), and removes the
 * handlers once `body` settles. They are on from the start; with `armedByBody`, from when `body` calls `arm()` (`buy`
 * arms once the purchase is confirmed, so a Ctrl-C at the prompt still just ends it). Returns `body`'s value and the
 * signal, which `throwIfStopped` reads once the command has shown what the run did.
 */
export async function stoppable<T>(
  logger: Logger,
  body: (signal: AbortSignal, arm: () => void) => Promise<T>,
  options: { armedByBody?: boolean } = {},
): Promise<{ value: T; signal: AbortSignal }> {
  const stop = new AbortController();
  let release: (() => void) | undefined;
  const arm = () => {
    release ??= stopOnSignals(logger, stop);
  };
  if (!options.armedByBody) arm();
  try {
    return { value: await body(stop.signal, arm), signal: stop.signal };
  } finally {
    release?.();
  }
}

/** Aborts `stop` (its reason: the signal's name) on the first signal; returns what removes the handlers. */
function stopOnSignals(logger: Logger, stop: AbortController): () => void {
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

/**
 * Once a signal stopped the run, the error the command ends with: what happened to its purchases; `unsent` says what
 * became of those it had not sent, and what to do next.
 */
export function throwIfStopped(signal: AbortSignal, unsent: string): void {
  if (!signal.aborted) return;
  throw new TopsyncError(
    "RUN_STOPPED",
    `the run stopped: ${String(signal.reason)}: what it sent is recorded; what it had not sent ${unsent}`,
    ExitCode.failure,
  );
}
