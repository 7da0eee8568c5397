// How reports write values for people: amounts exact with the currency ("NGN 1,234.00"), instants and days
// in the configured time zone, durations, percentages, and phone numbers masked unless asked otherwise.
import { formatDuration } from "../duration.js";
import { maskPhone, maskPhonesIn } from "../log/mask.js";
import type { Money } from "../money.js";

/** The reseller's currency; every amount in every format is in it. */
export const CURRENCY = "NGN";

/** "NGN 1,234.00": exact (big.js, two places), digits grouped; "NGN -5.00" below zero. */
export function formatAmount(value: Money): string {
  const [whole, fraction] = value.abs().toFixed(2).split(".");
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${CURRENCY} ${value.lt(0) ? "-" : ""}${grouped}.${fraction}`;
}

/** "2026-12-01 08:00" in `timeZone`. */
export function formatInstant(instant: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    instantFormat(timeZone)
      .formatToParts(instant)
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

/**
 * One formatter per time zone, made once: making an Intl.DateTimeFormat costs far more than formatting with one,
 * and a report formats an instant per open purchase, pass and fire (a report of hundreds spent most of its time there).
 */
const instantFormats = new Map<string, Intl.DateTimeFormat>();

function instantFormat(timeZone: string): Intl.DateTimeFormat {
  let format = instantFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-CA", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    });
    instantFormats.set(timeZone, format);
  }
  return format;
}

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
