// V8's flags a command changes as it runs, and how to put them back.
//
// V8 stamps a code cache with a hash of its flags and refuses a cache whose stamp differs from the flags it runs
// with. The CLI reads its cache before any command code runs and writes it as the process exits (src/cli.ts), so a
// flag a command sets on its way (the embedded database sets several) would stamp a cache that the next start, whose
// flags are still the ones it started with, refuses: every command on the embedded database compiled everything
// anew and wrote its cache again. A flag set here is put back by restoreRuntimeFlags, which the CLI calls just
// before it writes the cache.

import { PerformanceObserver } from "node:perf_hooks";
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";

const restores: string[] = [];

/**
 * Sets one V8 flag for the rest of the process; `restore` puts back V8's default (the launcher then sets again the
 * flags it set before the cache was read).
 */
export function setRuntimeFlag(flag: string, restore: string): void {
  setFlagsFromString(flag);
  restores.push(restore);
}

/** Puts back every flag setRuntimeFlag changed, the latest first. Called as the process exits. */
export function restoreRuntimeFlags(): void {
  for (const flag of restores.splice(0).reverse()) setFlagsFromString(flag);
}

/** Whether the operator chose a V8 flag themselves, on the command line or in NODE_OPTIONS: theirs stands. */
export function chosenByOperator(name: string): boolean {
  return [...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((arg) => arg.includes(name));
}

/** The young generation's size at which a lean heap stops it growing: two semi-spaces of 4 MB. */
const LEAN_YOUNG_GENERATION_BYTES = 8 * 1024 * 1024;
let lean = false;

/**
 * Holds the JavaScript heap small for the rest of the process, for a command that shares it with the embedded
 * database (which takes some 70 MB of its own before any work: bench/RESULTS.md, "Embedded database floor").
 * Two of V8's habits cost more memory than the command keeps alive (some 30 MB, from heap snapshots):
 * - its young generation doubles as the command allocates, up to two semi-spaces of 16 MB, resident for good. It
 *   stops growing here at 8 MB; a smaller one costs CPU in collections (an 8,000-purchase run took 20% more CPU
 *   with 2 MB), 8 MB cost nothing measurable;
 * - the old generation grows to twice what survived its last full collection (src/cli.ts holds it there); here to
 *   one and a half times.
 * V8 reads both flags as it collects, so they take effect when set, whatever ran before; neither is changed when
 * the operator chose it. The young generation's growth is stopped after the collection that took it to 8 MB (V8
 * has no flag for its largest size that it reads after start); one already larger stays as large.
 */
export function holdHeapLean(): void {
  if (lean) return;
  lean = true;
  if (!chosenByOperator("--heap-growing-percent"))
    setRuntimeFlag("--heap-growing-percent=50", "--heap-growing-percent=0");
  if (chosenByOperator("semi-space")) return;
  const stopYoungGrowth = (): boolean => {
    const young = getHeapSpaceStatistics().find((space) => space.space_name === "new_space");
    if (young === undefined || young.space_size < LEAN_YOUNG_GENERATION_BYTES) return false;
    setRuntimeFlag("--semi-space-growth-factor=1", "--semi-space-growth-factor=2");
    return true;
  };
  if (stopYoungGrowth()) return;
  const observer = new PerformanceObserver(() => {
    if (stopYoungGrowth()) observer.disconnect();
  });
  observer.observe({ entryTypes: ["gc"] });
}
