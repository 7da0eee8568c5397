// The one scale every chart uses: a bar's length as a whole number of units out of `units`, exact from
// the money values (big.js), so text, markdown and html draw the same proportions.
import Big from "big.js";
import { type Money, ZERO } from "../money.js";
import type { ChartBar } from "./document.js";

/**
 * Division to one decimal place, cut off rather than rounded: value × units ÷ max cut to one place rounds half up to
 * the same whole number as the exact quotient does (a cut never crosses the .5 that decides it), at a fraction of
 * the cost of big.js's default 20 places (a year's chart divides hundreds of times).
 */
const Tenths = Big();
Tenths.DP = 1;
Tenths.RM = Big.roundDown;

/** value ÷ max of `units`, rounded half up to a whole number. */
function scaled(value: Money, max: Money, units: number): number {
  return Number(new Tenths(value).times(units).div(max).round(0, Big.roundHalfUp).toFixed(0));
}

/** Lengths of the bars in whole units; the largest bar is `units` long, a non-zero bar at least 1. */
export function barLengths(bars: readonly ChartBar[], units: number): number[] {
  const max = bars.reduce((m, bar) => (bar.value.gt(m) ? bar.value : m), ZERO);
  if (max.lte(0)) return bars.map(() => 0);
  return bars.map((bar) => {
    if (bar.value.lte(0)) return 0;
    return Math.max(1, scaled(bar.value, max, units));
  });
}

/** One length on a scale whose largest value is `max` long in `units` (same rounding as barLengths). */
export function scaledLength(value: Money, max: Money, units: number): number {
  if (max.lte(0) || value.lte(0)) return 0;
  return Math.max(1, scaled(value, max, units));
}
