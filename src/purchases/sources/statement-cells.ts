// The amount and date cells of a provider's statement, read exactly in the format the export is declared to
// write, or refused with the reason: never a guess. A comma is a thousands separator only where it separates
// groups of three digits, a decimal comma only when the export is declared to write them; a date is read in its
// declared order (ISO 8601 unless told DD/MM/YYYY), and a time written without a zone in the zone given.
import type { STATEMENT_DATE_FORMATS } from "../../config/index.js";
import { MONEY_MAX } from "../../money.js";
import { wallClockInstant } from "../../time/cron.js";

/** How an export writes its dates: ISO 8601 (`2026-11-05`, `2026-11-05T14:03:00+01:00`) or day first. */
export type DateFormat = (typeof STATEMENT_DATE_FORMATS)[number];

export type Cell<T> = { ok: true; value: T } | { ok: false; reason: string };

/** Digits before the point of the largest amount the ledger holds (999999999999.99). */
const MONEY_MAX_WHOLE_DIGITS = MONEY_MAX.toFixed(0, 0).length;

const refuse = (reason: string): { ok: false; reason: string } => ({ ok: false, reason });

// Currency written beside the amount: ₦1,405.00, N1,405.00, NGN 1,405.00, 1,405.00 NGN.
const CURRENCY_BEFORE = /^(?:\u20a6|NGN|N)\s*(?=[\d\-\u2212(])/i;
const CURRENCY_AFTER = /\s*(?:\u20a6|NGN)$/i;
// Digits in groups of three, with one separator: a comma, a space or a no-break space (and a point when the
// decimals follow a comma).
const POINT_DECIMALS = /^(\d+|\d{1,3}(?:(,|[ \u00a0\u202f])\d{3})(?:\2\d{3})*)(?:\.(\d+))?$/;
const COMMA_DECIMALS = /^(\d+|\d{1,3}(?:([.]|[ \u00a0\u202f])\d{3})(?:\2\d{3})*)(?:,(\d+))?$/;

/**
 * A statement amount: what left the wallet, in naira, exact, as two-decimal text ("1405.00"). `decimalComma`: the
 * export writes `1.405,00` (thousands by points or spaces, decimals after the comma); otherwise `1,405.00`. At
 * most two decimals, not negative, and no larger than the ledger's money columns hold.
 */
export function readStatementAmount(text: string, decimalComma: boolean): Cell<string> {
  const bare = text.trim().replace(CURRENCY_BEFORE, "").replace(CURRENCY_AFTER, "");
  if (bare === "") return refuse("is empty");
  if (/^[-\u2212(]|-$|\)$/.test(bare)) return refuse("is negative (a statement line is a debit)");
  const match = (decimalComma ? COMMA_DECIMALS : POINT_DECIMALS).exec(bare);
  if (!match) return refuse(unreadableAmount(bare, decimalComma));
  const [, whole, , decimals = ""] = match;
  if (decimals.length > 2) return refuse("has more than two decimals");
  const digits = whole!.replace(/\D/g, "").replace(/^0+(?=\d)/, "");
  if (digits.length > MONEY_MAX_WHOLE_DIGITS) return refuse("is larger than the ledger's money columns hold");
  return { ok: true, value: `${digits}.${decimals.padEnd(2, "0")}` };
}

function unreadableAmount(bare: string, decimalComma: boolean): string {
  if (decimalComma) {
    if (/^[\d., \u00a0\u202f]+$/.test(bare) && /\.\d{1,2}$/.test(bare))
      return "has a point before its last digits, but the statement is declared to write decimal commas";
    return "is not an amount (declared with decimal commas: 1.405,00)";
  }
  if (/^[\d., \u00a0\u202f]+$/.test(bare) && bare.includes(","))
    return "has a comma that does not separate thousands (if the export writes decimal commas, say so with --decimal-comma)";
  return "is not an amount";
}

const ZONE = String.raw`(Z|UTC|[+-]\d{2}(?::?\d{2})?)`;
const TIME = String.raw`(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?`;
const ISO_DATE = new RegExp(String.raw`^(\d{4})-(\d{2})-(\d{2})(?:[T ]${TIME}\s?${ZONE}?)?$`, "i");
const DAY_FIRST = new RegExp(
  String.raw`^(\d{1,2})/(\d{1,2})/(\d{4})(?:(?:\s+|T|,\s*)${TIME}(?:\s?([AP]M))?\s?${ZONE}?)?$`,
  "i",
);

interface Reading {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  ms: number;
}

/**
 * A statement date in its declared format. A date without a time is the start of that day; a time without a zone
 * is read in `timeZone` (the exports of Nigerian platforms write Lagos time and say nothing).
 */
export function readStatementDate(text: string, format: DateFormat, timeZone: string): Cell<Date> {
  const trimmed = text.trim();
  if (trimmed === "") return refuse("is empty");
  const parts = format === "ISO" ? isoParts(trimmed) : dayFirstParts(trimmed);
  if (typeof parts === "string") return refuse(parts);
  const { reading, zone } = parts;
  if (!realReading(reading)) return refuse("is not a date on the calendar");
  if (zone !== undefined) {
    const offset = zoneOffsetMs(zone);
    if (offset === undefined) return refuse(`has a zone offset out of range (${zone})`);
    return { ok: true, value: new Date(utcOf(reading) - offset) };
  }
  const { ms, exact } = wallClockInstant(reading, timeZone);
  if (!exact) return refuse(`is a time ${timeZone}'s clocks skip`);
  return { ok: true, value: new Date(ms + reading.ms) };
}

const ISO_HINT =
  "is not an ISO 8601 date (2026-11-05 or 2026-11-05T14:03:00); an export that writes 05/11/2026 needs --date-format DD/MM/YYYY";

function isoParts(text: string): { reading: Reading; zone: string | undefined } | string {
  const m = ISO_DATE.exec(text);
  if (!m) return ISO_HINT;
  const [, year, month, day, hour, minute, second, fraction, zone] = m;
  return { reading: reading(year!, month!, day!, hour, minute, second, fraction), zone };
}

function dayFirstParts(text: string): { reading: Reading; zone: string | undefined } | string {
  const m = DAY_FIRST.exec(text);
  if (!m) {
    if (ISO_DATE.test(text)) return "is an ISO 8601 date, but the statement is declared to write DD/MM/YYYY";
    return "is not a DD/MM/YYYY date (05/11/2026 or 05/11/2026 14:03)";
  }
  const [, day, month, year, hour, minute, second, fraction, half, zone] = m;
  const read = reading(year!, month!, day!, hour, minute, second, fraction);
  if (half) {
    // 12-hour clock: 12:xx AM is just after midnight, 12:xx PM just after noon.
    if (read.hour < 1 || read.hour > 12) return `has an hour of ${read.hour} with ${half.toUpperCase()}`;
    read.hour = (read.hour % 12) + (half.toUpperCase() === "PM" ? 12 : 0);
  }
  return { reading: read, zone };
}

function reading(
  year: string,
  month: string,
  day: string,
  hour = "0",
  minute = "0",
  second = "0",
  fraction = "",
): Reading {
  return {
    year: Number(year),
    month: Number(month),
    day: Number(day),
    hour: Number(hour),
    minute: Number(minute),
    second: Number(second),
    ms: Number(fraction.padEnd(3, "0").slice(0, 3)),
  };
}

function utcOf(r: Reading): number {
  return Date.UTC(r.year, r.month - 1, r.day, r.hour, r.minute, r.second, r.ms);
}

/** Whether the reading names a real day (no 31 November) and a time of day. */
function realReading(r: Reading): boolean {
  const day = new Date(Date.UTC(r.year, r.month - 1, r.day));
  return (
    day.getUTCFullYear() === r.year &&
    day.getUTCMonth() === r.month - 1 &&
    day.getUTCDate() === r.day &&
    r.hour <= 23 &&
    r.minute <= 59 &&
    r.second <= 59
  );
}

/** `Z`, `UTC`, `+01`, `+0100` or `+01:00` as milliseconds east of UTC; undefined past ±14:00. */
function zoneOffsetMs(zone: string): number | undefined {
  if (/^(z|utc)$/i.test(zone)) return 0;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  if (minutes > 14 * 60 || Number(m[3] ?? 0) > 59) return undefined;
  return (m[1] === "-" ? -1 : 1) * minutes * 60_000;
}
