// When a job fires: the latest fire at or before an instant (for catch-up and one-shot runs) and the
// next fires (for plans), from node-cron's own matcher in the job's time zone. A leaf: purchases, the
// forecast and the daemon all use it, and it knows nothing of them.
import { createTask, type ScheduledTask } from "node-cron";

/** What deciding a job's fires needs of it (a config purchase job fits). */
export interface FireSchedule {
  schedule?: string;
  at?: Date;
  timezone?: string;
  /** How late a missed fire may still run, in ms. */
  catch_up: number;
}

/** Seconds when the pattern has a seconds field (6 fields), else minutes. */
function stepMs(expression: string): number {
  return expression.trim().split(/\s+/).length === 6 ? 1000 : 60_000;
}

function withTask<T>(expression: string, timeZone: string, use: (task: ScheduledTask) => T): T {
  const task = createTask(expression, () => {}, { timezone: timeZone });
  try {
    return use(task);
  } finally {
    void task.destroy();
  }
}

/** The latest instant in (now - window, now] the schedule matches, or undefined. */
export function latestFire(
  expression: string,
  timeZone: string,
  now: Date,
  windowMs: number,
): Date | undefined {
  const step = stepMs(expression);
  const start = Math.floor(now.getTime() / step) * step;
  return withTask(expression, timeZone, (task) => {
    for (let t = start; t > now.getTime() - windowMs; t -= step) {
      if (task.match(new Date(t))) return new Date(t);
    }
    return undefined;
  });
}

/** Every instant in (from, to] the schedule matches, oldest first (at most `limit`). */
export function firesBetween(
  expression: string,
  timeZone: string,
  from: Date,
  to: Date,
  limit = 10_000,
): Date[] {
  const step = stepMs(expression);
  const fires: Date[] = [];
  withTask(expression, timeZone, (task) => {
    for (
      let t = Math.floor(from.getTime() / step) * step + step;
      t <= to.getTime() && fires.length < limit;
      t += step
    ) {
      if (task.match(new Date(t))) fires.push(new Date(t));
    }
  });
  return fires;
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
  const step = stepMs(expression);
  const fires: Date[] = [];
  withTask(expression, timeZone, (task) => {
    let t = Math.ceil(before.getTime() / step) * step - step;
    for (; t > after.getTime() && fires.length < limit; t -= step) {
      if (task.match(new Date(t))) fires.push(new Date(t));
    }
  });
  return fires;
}

/** A six-field cron expression (in UTC) matching the second of a one-off `at` time, every year. */
export function atExpression(at: Date): string {
  return `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} ${at.getUTCDate()} ${at.getUTCMonth() + 1} *`;
}
