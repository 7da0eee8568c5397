// Cron arithmetic: the instants a cron expression fires at in a time zone, found by jumping field by field
// (day, then hour, minute, second) instead of testing every second. The fields are expanded by node-cron's
// own parser, and the instants are the ones node-cron's scheduler (its MatcherWalker, which the daemon runs)
// fires at: day-of-month AND day-of-week must both match (node-cron 4's TimeMatcher.match), a local time a
// DST change skips maps to the instant after the gap and fires only if that instant itself matches, and a
// local time a DST change repeats fires once, at the reading node-cron's conversion picks (the same code is
// followed here). A leaf: imports nothing of topsync.
import { parse } from "node-cron";

type DayToken = number | string;

interface Fields {
  seconds: number[];
  minutes: number[];
  hours: number[];
  daysOfMonth: DayToken[];
  months: Set<number>;
  daysOfWeek: DayToken[];
  secondSet: Set<number>;
  minuteSet: Set<number>;
  hourSet: Set<number>;
}

const ascending = (a: number, b: number) => a - b;

function fields(expression: string): Fields {
  const parsed = parse(expression);
  return {
    seconds: [...parsed.second].sort(ascending),
    minutes: [...parsed.minute].sort(ascending),
    hours: [...parsed.hour].sort(ascending),
    daysOfMonth: parsed.dayOfMonth,
    months: new Set(parsed.month),
    daysOfWeek: parsed.dayOfWeek,
    secondSet: new Set(parsed.second),
    minuteSet: new Set(parsed.minute),
    hourSet: new Set(parsed.hour),
  };
}

/** Whether both the day-of-month and the day-of-week field are restricted (not `*` or `?`). */
export function restrictsBothDayFields(expression: string): boolean {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 5 && parts.length !== 6) return false;
  const [dayOfMonth, , dayOfWeek] = parts.slice(-3);
  const open = (field: string | undefined) => field === "*" || field === "?";
  return !open(dayOfMonth) && !open(dayOfWeek);
}

// ---- calendar days (proleptic Gregorian, no time zone) ----

interface Day {
  year: number;
  month: number;
  day: number;
}

function lastDayOfMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function weekday(d: Day): number {
  return new Date(Date.UTC(d.year, d.month - 1, d.day)).getUTCDay();
}

function addDays(d: Day, n: number): Day {
  const t = new Date(Date.UTC(d.year, d.month - 1, d.day + n));
  return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate() };
}

function dayKey(d: Day): number {
  return d.year * 10_000 + d.month * 100 + d.day;
}

/** node-cron's "nearest weekday" (W): Saturday moves to Friday, Sunday to Monday, never across the month. */
function nearestWeekday(year: number, month: number, target: number): number {
  const last = lastDayOfMonth(year, month);
  if (target < 1 || target > last) return -1;
  const wd = new Date(Date.UTC(year, month - 1, target)).getUTCDay();
  if (wd === 6) return target === 1 ? target + 2 : target - 1;
  if (wd === 0) return target === last ? target - 2 : target + 1;
  return target;
}

function matchesDayOfMonth(tokens: DayToken[], d: Day): boolean {
  for (const token of tokens) {
    if (token === d.day) return true;
    if (typeof token !== "string") continue;
    if (token === "L") {
      if (d.day === lastDayOfMonth(d.year, d.month)) return true;
      continue;
    }
    const w = /^(\d{1,2}|L)W$/.exec(token);
    if (w) {
      const target = w[1] === "L" ? lastDayOfMonth(d.year, d.month) : Number(w[1]);
      if (nearestWeekday(d.year, d.month, target) === d.day) return true;
      continue;
    }
    const offset = /^L-(\d{1,2})$/.exec(token);
    if (offset) {
      const target = lastDayOfMonth(d.year, d.month) - Number(offset[1]);
      if (target >= 1 && target === d.day) return true;
    }
  }
  return false;
}

function matchesDayOfWeek(tokens: DayToken[], d: Day): boolean {
  const wd = weekday(d);
  for (const token of tokens) {
    if (token === wd) return true;
    if (typeof token !== "string") continue;
    const nth = /^([0-7])#([1-5])$/.exec(token);
    if (nth) {
      if (Number(nth[1]) % 7 === wd && Math.floor((d.day - 1) / 7) + 1 === Number(nth[2])) return true;
      continue;
    }
    const last = /^([0-7])L$/i.exec(token);
    if (last && Number(last[1]) % 7 === wd && d.day + 7 > lastDayOfMonth(d.year, d.month)) return true;
  }
  return false;
}

function dayMatches(f: Fields, d: Day): boolean {
  return f.months.has(d.month) && matchesDayOfMonth(f.daysOfMonth, d) && matchesDayOfWeek(f.daysOfWeek, d);
}

// ---- local time in a zone ----

interface Local extends Day {
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall-clock reading of an instant (whole seconds) in a zone. */
export function localTime(ms: number, timeZone: string): Local {
  // UTC needs no time zone data (and no Intl.DateTimeFormat, whose first use in a process costs 20–30 ms).
  if (timeZone === "UTC") {
    const date = new Date(ms);
    return {
      year: date.getUTCFullYear(),
      month: date.getUTCMonth() + 1,
      day: date.getUTCDate(),
      hour: date.getUTCHours(),
      minute: date.getUTCMinutes(),
      second: date.getUTCSeconds(),
    };
  }
  const out: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(ms))) {
    if (part.type !== "literal") out[part.type] = Number(part.value);
  }
  return {
    year: out.year!,
    month: out.month!,
    day: out.day!,
    hour: out.hour === 24 ? 0 : out.hour!,
    minute: out.minute!,
    second: out.second!,
  };
}

function asUtc(l: Local): number {
  return Date.UTC(l.year, l.month - 1, l.day, l.hour, l.minute, l.second);
}

/** The zone's offset from UTC at an instant, in ms (whole minutes, as node-cron reads it). */
export function offsetAt(ms: number, timeZone: string): number {
  const second = Math.floor(ms / 1000) * 1000;
  return Math.round((asUtc(localTime(second, timeZone)) - second) / 60_000) * 60_000;
}

function sameReading(a: Local, b: Local): boolean {
  return (
    a.year === b.year &&
    a.month === b.month &&
    a.day === b.day &&
    a.hour === b.hour &&
    a.minute === b.minute &&
    a.second === b.second
  );
}

/**
 * The instant a wall-clock time names in a zone, as node-cron computes it (one of the two readings in a
 * repeated hour, the instant after the gap for a time a DST change skips). `exact` is false in the gap.
 */
function toInstant(l: Local, timeZone: string): { ms: number; exact: boolean } {
  const guess = asUtc(l);
  const first = offsetAt(guess, timeZone);
  const candidate1 = guess - first;
  const second = offsetAt(candidate1, timeZone);
  if (second === first) return { ms: candidate1, exact: true };
  const candidate2 = guess - second;
  if (sameReading(localTime(candidate1, timeZone), l)) return { ms: candidate1, exact: true };
  if (sameReading(localTime(candidate2, timeZone), l)) return { ms: candidate2, exact: true };
  return { ms: Math.max(candidate1, candidate2), exact: false };
}

/**
 * The instant a wall-clock reading names in a zone (a time written without a zone, read in the zone it was
 * written in). `exact` is false for a reading the zone skips (the clocks jump over it), whose instant is then the
 * one after the gap; in a repeated hour it is one of the two readings.
 */
export function wallClockInstant(
  reading: { year: number; month: number; day: number; hour: number; minute: number; second: number },
  timeZone: string,
): { ms: number; exact: boolean } {
  if (timeZone === "UTC") return { ms: asUtc(reading), exact: true };
  // Most days have one offset all day (every day, in Lagos): measured once per day, not per reading.
  const offset = steadyOffset(reading, timeZone);
  if (offset !== undefined) return { ms: asUtc(reading) - offset, exact: true };
  return toInstant(reading, timeZone);
}

const HALF_DAY_PLUS = 14 * 3_600_000;

const steadyOffsets = new Map<string, number | null>();

/** The zone's offset over the whole local day when it does not change that day, else undefined. */
function steadyOffset(d: Day, timeZone: string): number | undefined {
  const key = `${timeZone} ${dayKey(d)}`;
  let offset = steadyOffsets.get(key);
  if (offset === undefined) {
    if (steadyOffsets.size > 100_000) steadyOffsets.clear();
    offset = measureSteadyOffset(d, timeZone) ?? null;
    steadyOffsets.set(key, offset);
  }
  return offset ?? undefined;
}

function measureSteadyOffset(d: Day, timeZone: string): number | undefined {
  const midnight = Date.UTC(d.year, d.month - 1, d.day);
  // Every instant that reads as this day (and every guess node-cron makes for it) lies in this span.
  const early = offsetAt(midnight - HALF_DAY_PLUS, timeZone);
  const late = offsetAt(midnight + 86_400_000 + HALF_DAY_PLUS, timeZone);
  return early === late ? early : undefined;
}

/** The fire a (day, hour, minute, second) combination gives, or undefined when node-cron would not fire. */
function fireOf(
  f: Fields,
  d: Day,
  hour: number,
  minute: number,
  second: number,
  tz: string,
  offset: number | undefined,
): number | undefined {
  if (offset !== undefined) return Date.UTC(d.year, d.month - 1, d.day, hour, minute, second) - offset;
  const { ms, exact } = toInstant({ ...d, hour, minute, second }, tz);
  if (exact) return ms;
  // In a DST gap node-cron fires only when the instant after the gap matches the expression itself.
  const l = localTime(ms, tz);
  const matches =
    f.secondSet.has(l.second) && f.minuteSet.has(l.minute) && f.hourSet.has(l.hour) && dayMatches(f, l);
  return matches ? ms : undefined;
}

/** node-cron's scheduler looks at most this many days ahead; so do we, both ways. */
const MAX_DAYS = 366 * 100;

/**
 * Every instant in (from, to] the expression fires at in `timeZone`, oldest first, at most `limit`.
 * Throws when node-cron does not accept the expression.
 */
export function cronFiresBetween(
  expression: string,
  timeZone: string,
  from: Date,
  to: Date,
  limit = Number.POSITIVE_INFINITY,
): Date[] {
  const f = fields(expression);
  const fires: Date[] = [];
  const fromMs = Math.floor(from.getTime() / 1000) * 1000;
  const toMs = to.getTime();
  if (toMs <= fromMs || limit <= 0) return fires;
  let last = fromMs;
  // One day earlier than `from` reads locally: a skipped local time can land after the start of the window.
  let day = addDays(localTime(fromMs, timeZone), -1);
  const lastDay = dayKey(addDays(localTime(toMs, timeZone), 1));
  for (let i = 0; i < MAX_DAYS && dayKey(day) <= lastDay; i++, day = addDays(day, 1)) {
    if (!dayMatches(f, day)) continue;
    const offset = steadyOffset(day, timeZone);
    for (const hour of f.hours)
      for (const minute of f.minutes)
        for (const second of f.seconds) {
          const ms = fireOf(f, day, hour, minute, second, timeZone, offset);
          if (ms === undefined || ms <= last) continue;
          if (ms > toMs) return fires;
          fires.push(new Date(ms));
          last = ms;
          if (fires.length >= limit) return fires;
        }
  }
  return fires;
}

/** Every instant in (after, before) the expression fires at, newest first, at most `limit`. */
export function cronFiresBefore(
  expression: string,
  timeZone: string,
  before: Date,
  after: Date,
  limit = Number.POSITIVE_INFINITY,
): Date[] {
  const f = fields(expression);
  const fires: Date[] = [];
  const beforeMs = before.getTime();
  const afterMs = after.getTime();
  if (beforeMs <= afterMs || limit <= 0) return fires;
  const hours = [...f.hours].reverse();
  const minutes = [...f.minutes].reverse();
  const seconds = [...f.seconds].reverse();
  let newest = beforeMs;
  let day = addDays(localTime(beforeMs, timeZone), 1);
  const firstDay = dayKey(addDays(localTime(afterMs, timeZone), -1));
  for (let i = 0; i < MAX_DAYS && dayKey(day) >= firstDay; i++, day = addDays(day, -1)) {
    if (!dayMatches(f, day)) continue;
    const offset = steadyOffset(day, timeZone);
    for (const hour of hours)
      for (const minute of minutes)
        for (const second of seconds) {
          const ms = fireOf(f, day, hour, minute, second, timeZone, offset);
          if (ms === undefined || ms >= newest) continue;
          if (ms <= afterMs) return fires;
          fires.push(new Date(ms));
          newest = ms;
          if (fires.length >= limit) return fires;
        }
  }
  return fires;
}

/** The first fire strictly after `after` (within node-cron's 100-year horizon), or undefined. */
export function cronNextFire(expression: string, timeZone: string, after: Date): Date | undefined {
  const horizon = new Date(after.getTime() + MAX_DAYS * 86_400_000);
  return cronFiresBetween(expression, timeZone, after, horizon, 1)[0];
}

/** The latest fire in (now - window, now], or undefined. */
export function cronLatestFire(
  expression: string,
  timeZone: string,
  now: Date,
  windowMs: number,
): Date | undefined {
  return cronFiresBefore(
    expression,
    timeZone,
    new Date(now.getTime() + 1),
    new Date(now.getTime() - windowMs),
    1,
  )[0];
}
