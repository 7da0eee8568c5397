// `--fire-time` names a fire, not any instant: truncated to the schedule's step (the minute, or the second for a
// six-field schedule) as `--now` is, and for a job with a `schedule` or an `at`, one the job produces.
import type { PurchaseJob } from "../config/index.js";
import { UsageError } from "../errors.js";
import { firesBetween, latestFire, onDemandFire } from "../time/fires.js";

const DAY = 86_400_000;

/** The fire `time` names for `job`; a time the job never fires at is a usage error naming the nearest fires. */
export function explicitFire(job: PurchaseJob, globalTimeZone: string, time: Date): Date {
  if (job.schedule) {
    const timeZone = job.timezone ?? globalTimeZone;
    const six = job.schedule.trim().split(/\s+/).length === 6;
    const step = six ? 1000 : 60_000;
    const slot = new Date(Math.floor(time.getTime() / step) * step);
    if (latestFire(job.schedule, timeZone, slot, 1)?.getTime() === slot.getTime()) return slot;
    const reach = six ? DAY : 31 * DAY;
    const before = latestFire(job.schedule, timeZone, new Date(slot.getTime() - step), reach);
    const [after] = firesBetween(job.schedule, timeZone, slot, new Date(slot.getTime() + reach), 1);
    throw notAFire(job, `its schedule "${job.schedule}" (${timeZone})`, time, [before, after]);
  }
  if (job.at) {
    if (Math.floor(time.getTime() / 1000) === Math.floor(job.at.getTime() / 1000)) return job.at;
    throw notAFire(job, "its `at`", time, [job.at]);
  }
  return onDemandFire(time);
}

function notAFire(job: PurchaseJob, what: string, time: Date, nearest: Array<Date | undefined>): UsageError {
  const found = nearest.filter((d): d is Date => d !== undefined).map((d) => d.toISOString());
  const hint =
    found.length > 0 ? `; the nearest fires are ${found.join(" and ")}` : "; it has no fire near it";
  return new UsageError(
    `--fire-time ${time.toISOString()} is not a fire of job "${job.name}" by ${what}${hint}`,
    "NOT_A_FIRE",
  );
}
