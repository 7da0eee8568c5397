// Which fires of each job fall in a plan's window: the one due now (as `purchases run` would write it), the
// scheduled ones (src/time/fires.ts), and the next fire after the window, all by src/time/cron.ts.
import type { Config, PurchaseJob } from "../config/index.js";
import { cronNextFire } from "../time/cron.js";
import { atWillNotFire, dueFire, firesBetween } from "../time/fires.js";
import type { JobFires, UnknownPart } from "./forecast-model.js";

/** More fires than this for one job in one window are not planned one by one: the plan says so. */
export const MAX_FIRES_PER_JOB = 500;

export function jobFires(
  config: Config,
  now: Date,
  to: Date,
  firstSeen: ReadonlyMap<string, Date>,
): { jobs: JobFires[]; unknown: UnknownPart[] } {
  const unknown: UnknownPart[] = [];
  const jobs = config.purchases.map((job): JobFires => {
    if (!job.enabled) return { job, dueNow: null, fires: [], nextFire: null };
    const timeZone = job.timezone ?? config.timezone;
    // A job never run before is registered with first_seen = now: no catch-up fire from before it existed.
    const dueNow = dueFire(job, config.timezone, now, firstSeen.get(job.name) ?? now) ?? null;
    const fires = scheduledFires(job, timeZone, now, to);
    if (fires.length > MAX_FIRES_PER_JOB) {
      const last = fires[MAX_FIRES_PER_JOB - 1]!;
      unknown.push({
        part: `job ${job.name} after ${last.toISOString()}`,
        reason: `it fires more than ${MAX_FIRES_PER_JOB} times in the window; plan a shorter --window`,
      });
      return { job, dueNow, fires: fires.slice(0, MAX_FIRES_PER_JOB), nextFire: null };
    }
    const willNotFire = atWillNotFire(job, now, firstSeen.get(job.name));
    return {
      job,
      dueNow,
      fires,
      nextFire: nextFire(job, timeZone, to),
      ...(willNotFire ? { willNotFire } : {}),
    };
  });
  return { jobs, unknown };
}

function scheduledFires(job: PurchaseJob, timeZone: string, now: Date, to: Date): Date[] {
  if (job.schedule) return firesBetween(job.schedule, timeZone, now, to, MAX_FIRES_PER_JOB + 1);
  if (job.at && job.at.getTime() > now.getTime() && job.at.getTime() <= to.getTime()) return [job.at];
  return [];
}

/** The first fire after the window. */
function nextFire(job: PurchaseJob, timeZone: string, to: Date): Date | null {
  if (job.at) return job.at.getTime() > to.getTime() ? job.at : null;
  if (!job.schedule) return null;
  return cronNextFire(job.schedule, timeZone, to) ?? null;
}
