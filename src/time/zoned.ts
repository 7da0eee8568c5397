// A time an operator types for a job (`--fire-time`, a backfill's `--from`/`--to`), read in the job's time zone
// when it names no zone: the schedule's wall clock is what the operator reads fires in, and the machine's own
// zone (which `new Date(text)` would use) is nobody's. A date alone is that day's midnight there — or, as the end of
// an inclusive window, the day's last millisecond.
import { calendarParts } from "./calendar.js";
import { wallClockInstant } from "./cron.js";

/**
 * The instant `text` names, an ISO date or date-time; one without an offset is read in `timeZone`. Undefined when
 * it is not one, or not a real date and time. `endOfDay`: a date alone means the end of that day.
 */
export function zonedInstant(text: string, timeZone: string, endOfDay = false): Date | undefined {
  const parts = calendarParts(text);
  if (!parts) return undefined;
  const { year, month, day, hour, minute, second, fraction, offset } = parts;
  if (offset) {
    const instant = new Date(text.trim());
    return Number.isNaN(instant.getTime()) ? undefined : instant;
  }
  const ms = fraction ? Math.floor(Number(fraction) * 1000) : 0;
  if (!parts.hasTime && endOfDay) {
    const next = new Date(Date.UTC(year, month - 1, day + 1));
    const midnight = wallClockInstant(
      {
        year: next.getUTCFullYear(),
        month: next.getUTCMonth() + 1,
        day: next.getUTCDate(),
        hour: 0,
        minute: 0,
        second: 0,
      },
      timeZone,
    );
    return new Date(midnight.ms - 1);
  }
  return new Date(wallClockInstant({ year, month, day, hour, minute, second }, timeZone).ms + ms);
}
