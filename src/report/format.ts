// How reports write values for people: amounts exact with the currency ("NGN 1,234.00"), instants and days
// in the configured time zone, durations, percentages, and phone numbers masked unless asked otherwise.
import { formatDuration } from "../duration.js";
import { maskPhone, maskPhonesIn } from "../log/mask.js";
import type { Money } from "../money.js";
import { offsetAt } from "../time/cron.js";

/** The reseller's currency; every amount in every format is in it. */
export const CURRENCY = "NGN";

/** "NGN 1,234.00": exact (big.js, two places), digits grouped; "NGN -5.00" below zero. */
export function formatAmount(value: Money): string {
  const [whole, fraction] = value.abs().toFixed(2).split(".");
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${CURRENCY} ${value.lt(0) ? "-" : ""}${grouped}.${fraction}`;
}

/**
 * "2026-12-01 08:00" in `timeZone`. A time the clocks show twice (the hour repeated when they go back) says which
 * of the two it is: "2026-11-01 01:30 (-04:00)", then "2026-11-01 01:30 (-05:00)".
 */
export function formatInstant(instant: Date, timeZone: string): string {
  const ms = instant.getTime();
  if (Number.isNaN(ms)) return "Invalid Date";
  const hour = hourReading(ms, timeZone);
  const offset = hour.offset ?? offsetAt(ms, timeZone);
  const local = new Date(ms + offset);
  const two = (n: number) => String(n).padStart(2, "0");
  const text = `${local.getUTCFullYear()}-${two(local.getUTCMonth() + 1)}-${two(local.getUTCDate())} ${two(local.getUTCHours())}:${two(local.getUTCMinutes())}`;
  hour.quiet ??= quietHour(ms, hour.offset, timeZone);
  if (hour.quiet || !shownTwice(ms, offset, timeZone)) return text;
  const minutes = Math.abs(offset) / 60_000;
  return `${text} (${offset < 0 ? "-" : "+"}${two(Math.floor(minutes / 60))}:${two(minutes % 60)})`;
}

/**
 * Whether the wall time at `ms` (read with `offset`) is also the wall time of another instant: an offset read a few
 * hours away differs, and the instant that shows the same wall time under it does have that offset.
 */
function shownTwice(ms: number, offset: number, timeZone: string): boolean {
  for (const near of [ms - NEAR_MS, ms + NEAR_MS]) {
    const other = offsetInHour(near, timeZone);
    if (other === offset) continue;
    const twin = ms + offset - other;
    if (offsetInHour(twin, timeZone) === other) return true;
  }
  return false;
}

/**
 * Whether no instant of the UTC hour holding `ms` can be shown twice: the hour, and the hours `shownTwice` reads
 * (NEAR_MS before and after), each read one offset, the same. Known once per hour, so that a report formatting many
 * instants pays for `shownTwice` only around a change of the clocks.
 */
function quietHour(ms: number, offset: number | null, timeZone: string): boolean {
  if (offset === null) return false;
  const before = hourReading(ms - NEAR_MS, timeZone).offset;
  const after = hourReading(ms + NEAR_MS, timeZone).offset;
  return before === offset && after === offset;
}

/** The zone's offset from UTC during the UTC hour that holds `ms` (see hourReading). */
function offsetInHour(ms: number, timeZone: string): number {
  return hourReading(ms, timeZone).offset ?? offsetAt(ms, timeZone);
}

interface HourReading {
  /** The hour's one offset; null when its two ends read different offsets (its instants are read one by one). */
  offset: number | null;
  /** No instant of it can be shown twice (quietHour), once asked. */
  quiet?: boolean;
}

/**
 * A UTC hour of a zone, read once: a report formats an instant per open purchase, pass and fire, and Intl's
 * formatToParts for each was most of a year's report page. An hour whose two ends read different offsets holds a
 * change of the clocks.
 */
function hourReading(ms: number, timeZone: string): HourReading {
  const hour = Math.floor(ms / HOUR_MS) * HOUR_MS;
  const key = `${timeZone} ${hour}`;
  let reading = hourReadings.get(key);
  if (reading === undefined) {
    const start = offsetAt(hour, timeZone);
    reading = { offset: start === offsetAt(hour + HOUR_MS - 1, timeZone) ? start : null };
    if (hourReadings.size > 10_000) hourReadings.clear();
    hourReadings.set(key, reading);
  }
  return reading;
}

const HOUR_MS = 3_600_000;
/** How far either side `shownTwice` looks for another offset: more than any repeated stretch of the clocks. */
const NEAR_MS = 3 * HOUR_MS;
const hourReadings = new Map<string, HourReading>();

/** A latency: "850ms", "12.3s", then "4m10s". */
export function formatLatency(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(Math.round(Math.round(ms) / 100) / 10).toFixed(1)}s`;
  return formatDuration(ms);
}

/** An age to the minute: "45m", "3h20m", "2d4h" (seconds only under a minute). */
export function formatAge(ms: number): string {
  if (ms < 60_000) return formatDuration(Math.max(0, ms));
  const minutes = Math.floor(ms / 60_000);
  if (minutes >= 2 * 24 * 60) return formatDuration(Math.floor(minutes / 60) * 3_600_000);
  return formatDuration(minutes * 60_000);
}

/** "97.5%" of `part` in `whole`, one decimal; undefined when there is no whole. */
export function formatPercent(part: number, whole: number): string | undefined {
  if (whole === 0) return undefined;
  return `${(Math.round((part * 1000) / whole) / 10).toFixed(1)}%`;
}

/** "1 purchase", "2 purchases": a count and its noun. */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

/** How phone numbers appear in one report: masked (the default) or as stored. */
export interface PhoneView {
  phone(value: string): string;
  /** Free text (a provider's message, a reason, a request key) with every phone number in it masked. */
  text(value: string): string;
}

export function phoneView(showPhone: boolean): PhoneView {
  if (showPhone) return { phone: (value) => value, text: (value) => value };
  return { phone: maskPhone, text: maskPhonesIn };
}
