// TOPSYNC_TIMINGS=1: where a command's time goes, for an operator asking why a command is slow and for the
// benchmarks (bench/command.js prints the steps of a purchase run). A step is marked the first time it happens, in
// milliseconds since the process started; at exit the marks go to standard error as one line, after Node.js's own
// start (its bootstrap, from `performance.nodeTiming`). Unset, a mark costs one check of a constant.
import { writeSync } from "node:fs";

const enabled = process.env.TOPSYNC_TIMINGS === "1";
const marks = new Map<string, number>();

/**
 * The steps a purchase run marks, in the order they usually come: the command starts (`main`), has its config,
 * has the ledger open (connected, migrations checked), has the reseller's catalogue, has written the first rows
 * of its fires, has claimed its first purchases, sends its first purchase, has settled its last, and is done.
 * The line says Node.js's own start (`node`) before them and the process's `exit` after.
 */
export const STEPS = [
  "main",
  "config",
  "ledger",
  "catalogue",
  "rows",
  "claimed",
  "post",
  "settled",
  "done",
] as const;
export type Step = (typeof STEPS)[number];

/** Marks `step` now, unless it was marked already (or timings are off). */
export function mark(step: Step): void {
  if (!enabled || marks.has(step)) return;
  if (marks.size === 0) process.once("exit", report);
  marks.set(step, performance.now());
}

const LINE_START = "timings (ms since start): ";

/** Writes `timings (ms since start): node 41.2, main 79.6, config 107.0, …, exit 248.0` as the process exits. */
function report(): void {
  const parts = [
    ["node", performance.nodeTiming.bootstrapComplete] as const,
    ...marks,
    ["exit", performance.now()] as const,
  ].map(([step, ms]) => `${step} ${ms.toFixed(1)}`);
  try {
    // Synchronous: the process is exiting.
    writeSync(2, `${LINE_START}${parts.join(", ")}\n`);
  } catch {
    // Standard error closed: nothing to say it on.
  }
}

/** The steps of the timings line in a command's output, in the order written; undefined when it has none. */
export function readTimings(output: string): Array<[step: string, ms: number]> | undefined {
  const line = output.split("\n").find((text) => text.startsWith(LINE_START));
  return line
    ?.slice(LINE_START.length)
    .split(", ")
    .map((part) => {
      const [step = "", ms] = part.split(" ");
      return [step, Number(ms)];
    });
}
