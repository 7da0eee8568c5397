// When a job fires: the latest fire at or before an instant (for catch-up and one-shot runs) and the
// next fires (for plans), from the cron arithmetic in cron.ts, which agrees with node-cron's scheduler fire
// for fire in the job's time zone. A leaf: purchases, the forecast and the daemon all use it, and it knows
// nothing of them.
import { cronFiresBefore, cronFiresBetween, cronLatestFire } from "./cron.js";

/** What deciding a job's fires needs of it (a config purchase job fits). */
export interface FireSchedule {
  schedule?: string;
  at?: Date;
  timezone?: string;
  enabled?: boolean;
  /** How late a missed fire may still run, in ms. */
  catch_up: number;
}

/** The latest instant in (now - window, now] the schedule matches, or undefined. */
export function latestFire(
  expression: string,
  timeZone: string,
  now: Date,
  windowMs: number,
): Date | undefined {
  return cronLatestFire(expression, timeZone, now, windowMs);
}

/** Every instant in (from, to] the schedule matches, oldest first (at most `limit`). */
export function firesBetween(
  expression: string,
  timeZone: string,
  from: Date,
  to: Date,
  limit = 10_000,
): Date[] {
  return cronFiresBetween(expression, timeZone, from, to, limit);
}

/** The fire of a job that is due at `now`: its latest scheduled fire within catch_up, or its `at` time. */
export function dueFire(
  job: FireSchedule,
  globalTimeZone: string,
  now: Date,
  notBefore?: Date,
): Date | undefined {
  let fire: Date | undefined;
  if (job.schedule) fire = latestFire(job.schedule, job.timezone ?? globalTimeZone, now, job.catch_up);
  else if (job.at && job.at.getTime() <= now.getTime() && now.getTime() - job.at.getTime() < job.catch_up)
    fire = job.at;
  if (fire && notBefore && fire.getTime() < notBefore.getTime()) return undefined;
  return fire;
}

/**
 * Why a job's one-off `at` time will never fire, or undefined: it is earlier than the first time topsync saw
 * the job (`firstSeen`; a job not seen yet is first seen `now`). Like a missed starting deadline, a time that
 * passed before the job existed is not caught up.
 */
export function atWillNotFire(job: FireSchedule, now: Date, firstSeen: Date | undefined): string | undefined {
  if (!job.at || !job.enabled) return undefined;
  const seen = firstSeen ?? now;
  if (job.at.getTime() >= seen.getTime()) return undefined;
  return (
    `its at time ${job.at.toISOString()} is earlier than ${seen.toISOString()}, when topsync first saw the ` +
    "job: a one-off time that passed before the job existed never fires (set a later at time)"
  );
}

/** An on-demand fire time: now truncated to the minute, so repeating it within the minute adds nothing. */
export function onDemandFire(now: Date): Date {
  return new Date(Math.floor(now.getTime() / 60_000) * 60_000);
}

/** Every instant in (after, before) the schedule matches, newest first (at most `limit`). */
export function firesBefore(
  expression: string,
  timeZone: string,
  before: Date,
  after: Date,
  limit: number,
): Date[] {
  return cronFiresBefore(expression, timeZone, before, after, limit);
}

/** A six-field cron expression (in UTC) matching the second of a one-off `at` time, every year. */
export function atExpression(at: Date): string {
  return `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} ${at.getUTCDate()} ${at.getUTCMonth() + 1} *`;
}
