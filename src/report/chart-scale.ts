// The one scale every chart uses: a bar's length as a whole number of units out of `units`, exact from
// the money values (big.js), so text, markdown and html draw the same proportions.
import { type Money, ZERO } from "../money.js";
import type { ChartBar } from "./document.js";

/** Lengths of the bars in whole units; the largest bar is `units` long, a non-zero bar at least 1. */
export function barLengths(bars: readonly ChartBar[], units: number): number[] {
  const max = bars.reduce((m, bar) => (bar.value.gt(m) ? bar.value : m), ZERO);
  if (max.lte(0)) return bars.map(() => 0);
  return bars.map((bar) => {
    if (bar.value.lte(0)) return 0;
    return Math.max(1, Number(bar.value.div(max).times(units).round(0, 1).toFixed(0)));
  });
}

/** One length on a scale whose largest value is `max` long in `units` (same rounding as barLengths). */
export function scaledLength(value: Money, max: Money, units: number): number {
  if (max.lte(0) || value.lte(0)) return 0;
  return Math.max(1, Number(value.div(max).times(units).round(0, 1).toFixed(0)));
}
