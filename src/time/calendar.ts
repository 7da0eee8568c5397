// Dates and times typed by people (`--since 2026-11-01`): only real ones. `new Date("2026-02-30")` rolls over
// to 2 March; this refuses it instead.

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** The parts of an ISO date or date-time as written; `hasTime` when it has one, `offset` when it names its zone. */
export interface CalendarParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** The fraction of a second as written (".250"), if any. */
  fraction?: string;
  /** "Z" or "+01:00" as written, if any. */
  offset?: string;
  hasTime: boolean;
}

/** The parts of an ISO date or date-time, or undefined when it is not one or not a real calendar date and time. */
export function calendarParts(text: string): CalendarParts | undefined {
  const match = DATE_TIME.exec(text.trim());
  if (!match) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0] = match
    .slice(1, 7)
    .map((part) => Number(part ?? 0)) as number[];
  const calendar = new Date(Date.UTC(year!, month! - 1, day!));
  if (
    calendar.getUTCFullYear() !== year ||
    calendar.getUTCMonth() !== month! - 1 ||
    calendar.getUTCDate() !== day ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  )
    return undefined;
  return {
    year: year!,
    month: month!,
    day: day!,
    hour,
    minute,
    second,
    fraction: match[7],
    offset: match[8],
    hasTime: match[4] !== undefined,
  };
}
