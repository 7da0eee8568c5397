// The first Intl time zone formatter a process makes costs 20–30 ms: ICU loads its locale, calendar and zone data.
// Those tables are the process's, not a thread's, so a worker thread that makes the formatters topsync uses, on
// another core while the command opens its ledger and loads its modules, leaves the command's own first formatter
// (a budget day, a cron fire) under a millisecond. Starting the thread costs the command some 3 ms, and the process
// keeps some 4 MB of it after it ends (src/cli/program.ts starts it only where that is worth it). Speed only: a
// thread that cannot start changes nothing but the wait.
import { Worker } from "node:worker_threads";

/** What the worker runs: the formatters of src/purchases/guards.ts and src/time/cron.ts, and the zone list. */
const WARM = `
new Intl.DateTimeFormat("en-CA", { timeZone: "Africa/Lagos", year: "numeric", month: "2-digit", day: "2-digit" }).format(0);
new Intl.DateTimeFormat("en-US", { timeZone: "Europe/Berlin", hourCycle: "h23", year: "numeric", month: "numeric",
  day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" }).format(0);
Intl.supportedValuesOf("timeZone");
`;

let started = false;

/**
 * Starts the warming thread, once per process (the thread, or undefined when it had started before or cannot
 * start). It never holds the process open and says nothing.
 */
export function warmTimeZones(): Worker | undefined {
  if (started) return undefined;
  started = true;
  try {
    const worker = new Worker(WARM, { eval: true, stdout: true, stderr: true });
    worker.unref();
    worker.on("error", () => {});
    return worker;
  } catch {
    // No thread: the first formatter is made on the main thread, as without this.
    return undefined;
  }
}
