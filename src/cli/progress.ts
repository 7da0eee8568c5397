// Progress of long work: a live line on a terminal, a log line every few seconds otherwise (how often:
// TOPSYNC_PROGRESS_INTERVAL, a duration such as 500ms or 10s; 5s when unset). Every long command reports here.
import type { ListingProgress } from "../analytics/client.js";
import { parseDuration } from "../duration.js";
import type { Pace } from "../http/service-client.js";
import type { Logger } from "../log/logger.js";
import type { ProjectionProgress } from "../purchases/projection-read.js";

export interface ProgressReporter<T> {
  update(value: T): void;
  /** Ends the line: a terminal keeps the last state on its own line; a log gets it when it had any line before. */
  done(): void;
}

export const PROGRESS_INTERVAL_ENV = "TOPSYNC_PROGRESS_INTERVAL";
const LOG_INTERVAL_MS = 5000;
const TERMINAL_INTERVAL_MS = 150;
/** The longest interval between progress lines: a day (a timer cannot wait beyond 24.8 days, and fires at once instead). */
const MAX_LOG_INTERVAL_MS = 86_400_000;

/** How often a log line is written when stderr is not a terminal. */
export function progressInterval(logger: Logger, env: NodeJS.ProcessEnv = process.env): number {
  const text = env[PROGRESS_INTERVAL_ENV];
  if (text === undefined || text.trim() === "") return LOG_INTERVAL_MS;
  try {
    const ms = parseDuration(text);
    if (ms > 0) return Math.min(ms, MAX_LOG_INTERVAL_MS);
  } catch {
    // said below
  }
  logger.warn(`${PROGRESS_INTERVAL_ENV}="${text}" is not a duration such as 500ms or 10s; progress every 5s`);
  return LOG_INTERVAL_MS;
}

/**
 * A reporter of `T`: `render` turns the latest value into the line, given the time since the first update (the
 * clock starts there, so a reporter made early but fed late does not count the wait). Nothing is shown until the
 * first interval has passed, so a command that is quick stays quiet.
 */
export function progressReporter<T>(
  render: (value: T, elapsedMs: number) => string,
  logger: Logger,
  intervalMs?: number,
): ProgressReporter<T> {
  const tty = process.stderr.isTTY === true;
  const every = tty ? TERMINAL_INTERVAL_MS : (intervalMs ?? progressInterval(logger));
  let latest: T | undefined;
  let started = 0;
  let lastWrite = 0;
  let written = false;
  let shown = "";
  let timer: NodeJS.Timeout | undefined;
  const line = () => render(latest as T, Date.now() - started);
  function flush() {
    if (latest === undefined || Date.now() - lastWrite < every - 5) return;
    lastWrite = Date.now();
    written = true;
    const text = line();
    // A log repeats an unchanged line (the work is alive); a terminal's line is redrawn only when it changes.
    if (!tty) logger.info(text);
    else if (text !== shown) process.stderr.write(`\r\x1b[2K${text}`);
    shown = text;
  }
  return {
    update(value) {
      latest = value;
      if (timer) return;
      started = Date.now();
      lastWrite = started;
      timer = setInterval(flush, every);
      timer.unref();
    },
    done() {
      clearInterval(timer);
      timer = undefined;
      if (latest === undefined || !written) return;
      if (tty) process.stderr.write(`\r\x1b[2K${line()}\n`);
      else logger.info(line());
      written = false;
      shown = "";
    },
  };
}

/** A count to show: `done` of `total` (when known) `unit`s, what else to say, and the pace the work is held to. */
export interface Count {
  done: number;
  total?: number;
  /** Plural: "changes", "pages". */
  unit: string;
  /** Said in brackets after the count: "3 failed". */
  note?: string;
  /** When a service's pace holds the work: one unit is one request. */
  pace?: PaceOf;
}

/** A client's pace, named for the operator: "analytics.rate_limit" or "the service". */
export interface PaceOf {
  perMinute: number;
  by: string;
}

export function paceOf(service: string, pace: Pace): PaceOf {
  return { perMinute: pace.perMinute, by: pace.by === "service" ? "the service" : `${service}.rate_limit` };
}

/** The pages of a website listing read so far, one request each. */
export function pagesRead(listing: ListingProgress, pace?: PaceOf): Count {
  const note = `${number(listing.websites)} websites`;
  return { done: listing.page, total: listing.lastPage, unit: "pages read", note, pace };
}

/** A projection's runs decided so far, and their rows (a recipients file's length is not known before its end). */
export function runsDecided(projection: ProjectionProgress): Count {
  const note = `${number(projection.rows)} rows`;
  return { done: projection.runs, total: projection.total, unit: "runs decided", note };
}

/**
 * "120/500 changes (3 failed), paced at 54 a minute by analytics.rate_limit, about 7 min left". The pace is
 * named while it is what holds the work (the rate so far is not far above it); otherwise the time left is
 * the rate so far, once there is one to go by; without a total, the rate so far is said instead.
 */
export function countLine(count: Count, elapsedMs: number): string {
  const parts = [
    `${number(count.done)}${count.total === undefined ? "" : `/${number(count.total)}`} ${count.unit}${count.note ? ` (${count.note})` : ""}`,
  ];
  const left = count.total === undefined ? 0 : count.total - count.done;
  const observed = count.done > 0 && elapsedMs >= 1000 ? (count.done * 60_000) / elapsedMs : undefined;
  const pace = count.pace;
  if (pace && observed !== undefined && pace.perMinute <= observed * 1.25) {
    parts.push(`paced at ${perMinute(pace.perMinute)} a minute by ${pace.by}`);
    if (left > 0) parts.push(`about ${duration((left / pace.perMinute) * 60_000)} left`);
  } else if (observed !== undefined && left > 0 && elapsedMs >= 3000) {
    parts.push(`about ${duration((left / observed) * 60_000)} left`);
  } else if (observed !== undefined && count.total === undefined && elapsedMs >= 3000) {
    parts.push(`${perMinute(observed / 60)} a second so far`);
  }
  return parts.join(", ");
}

/** 12,345 */
export function number(n: number): string {
  return n.toLocaleString("en-US");
}

function perMinute(n: number): string {
  return n >= 10 ? number(Math.round(n)) : String(Math.round(n * 10) / 10);
}

/** A rough time: "40 s", "7 min", "2 h 5 min". */
export function duration(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  if (seconds < 90) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
