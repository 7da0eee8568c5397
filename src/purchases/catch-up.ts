// Start-up catch-up, like a Kubernetes CronJob's starting deadline: the latest fire of a
// job missed within `catch_up` runs once; older missed fires are recorded as skipped with the reason and never run.
// A scheduled job's fires from before it first appeared in config were never its to miss: neither run nor recorded
// (each would be a `missed_fire` notice for every job added). A one-off `at` from before then is recorded skipped:
// it will never run, and the operator who wrote it is told.
import type { PurchaseJob } from "../config/index.js";
import { formatDuration } from "../duration.js";
import { dueFire, firesBefore } from "../time/fires.js";

/** How far back missed fires are looked for and reported (or `catch_up`, when longer). */
export const REPORT_WINDOW_MS = 24 * 3_600_000;
/** At most this many skipped fires are recorded per job per start (the newest). */
export const MAX_REPORTED = 1000;

export interface CatchUpInput {
  job: PurchaseJob;
  globalTimeZone: string;
  now: Date;
  /** When the job first appeared in config (the `jobs` table). */
  firstSeen: Date;
  /** The newest fire of the job already in `schedule_fires`: nothing at or before it is missed. */
  lastRecorded?: Date;
  /**
   * False: with no fire recorded for the job, fires before the latest within catch_up (and an `at` past it) are not
   * looked for (a pass without a daemon, on a ledger whose earlier passes recorded none of the fires they wrote,
   * cannot tell them missed).
   */
  lookBackUnrecorded?: boolean;
}

export interface SkippedFire {
  fireTime: Date;
  reason: string;
}

export interface CatchUpPlan {
  /** The fire to run now, if any. */
  run?: Date;
  /** Newest first. */
  skipped: SkippedFire[];
}

export function planCatchUp(input: CatchUpInput, limit = MAX_REPORTED): CatchUpPlan {
  const { job, now, firstSeen, lastRecorded } = input;
  const isNew = (t: Date) => lastRecorded === undefined || t > lastRecorded;
  const beforeFirstSeen = (t: Date): SkippedFire => ({
    fireTime: t,
    reason: `before the job first appeared in config (${firstSeen.toISOString()})`,
  });
  const tooOld = (t: Date): SkippedFire => ({
    fireTime: t,
    reason: `missed by more than catch_up (${formatDuration(job.catch_up)})`,
  });

  if (job.at) {
    const at = job.at;
    if (at > now || !isNew(at)) return { skipped: [] };
    if (at < firstSeen) return { skipped: [beforeFirstSeen(at)] };
    if (now.getTime() - at.getTime() < job.catch_up) return { run: at, skipped: [] };
    // Past catch_up and never recorded: a pass from before fires were recorded may have run it (not looked back on).
    if (lastRecorded === undefined && input.lookBackUnrecorded === false) return { skipped: [] };
    return { skipped: [tooOld(at)] };
  }
  if (!job.schedule) return { skipped: [] };

  const latest = dueFire(job, input.globalTimeZone, now);
  const plan: CatchUpPlan = { skipped: [] };
  if (latest && isNew(latest) && latest >= firstSeen) plan.run = latest;
  const floor = Math.max(
    firstSeen.getTime() - 1,
    lastRecorded?.getTime() ?? Number.NEGATIVE_INFINITY,
    now.getTime() - Math.max(job.catch_up, REPORT_WINDOW_MS),
  );
  const before = latest ?? new Date(now.getTime() + 1);
  if (lastRecorded === undefined && input.lookBackUnrecorded === false) return plan;
  const older = firesBefore(
    job.schedule,
    job.timezone ?? input.globalTimeZone,
    before,
    new Date(floor),
    limit - plan.skipped.length,
  );
  const deadline = now.getTime() - job.catch_up;
  for (const t of older) {
    plan.skipped.push(
      t.getTime() <= deadline
        ? tooOld(t)
        : { fireTime: t, reason: `superseded: only the latest missed fire (${before.toISOString()}) runs` },
    );
  }
  return plan;
}
