// Acts on the catch-up plan at start-up: records the skipped fires, and claims and writes the one fire to
// run through the same fire keys node-cron uses, so a fire another replica already ran is not run again.
import type { PurchaseJob } from "../config/index.js";
import { planCatchUp, REPORT_WINDOW_MS } from "../purchases/catch-up.js";
import { lastRecordedFire, recordSkippedFires } from "../purchases/fire-ledger.js";
import { activeAt, readJobEvents, readJobState } from "../purchases/job-states.js";
import type { DaemonContext } from "./context.js";
import { type FireCoordinator, fireKeyOf, jobTaskName } from "./coordinator.js";
import { slotOf, writeFire } from "./job-fire.js";

export interface CatchUpResult {
  job: string;
  ran?: Date;
  skipped: number;
}

/**
 * Catches every job up to `now`, one instant for all of them: a job's catch-up does not depend on how long
 * the jobs before it took. The daemon calls it at start with the instant the jobs were registered, and once
 * more after its schedules have started, for the fires that fell between the two (nothing is run twice: a
 * fire already recorded is not missed, and a fire is claimed by its key).
 */
export async function catchUpJobs(
  ctx: DaemonContext,
  coordinator: FireCoordinator,
  firstSeen: Map<string, Date>,
  now: Date,
): Promise<CatchUpResult[]> {
  const results: CatchUpResult[] = [];
  for (const job of ctx.config.purchases) {
    if (!job.enabled || (!job.schedule && !job.at)) continue;
    const seen = firstSeen.get(job.name) ?? now;
    try {
      results.push(await catchUpJob(ctx, coordinator, job, seen, now));
    } catch (error) {
      ctx.logger.error(
        { job: job.name, err: error },
        `job ${job.name}: catch-up failed: ${(error as Error).message}`,
      );
    }
  }
  return results;
}

async function catchUpJob(
  ctx: DaemonContext,
  coordinator: FireCoordinator,
  job: PurchaseJob,
  firstSeen: Date,
  now: Date,
): Promise<CatchUpResult> {
  const db = ctx.database.db;
  const plan = planCatchUp({
    job,
    globalTimeZone: ctx.config.timezone,
    now,
    firstSeen,
    lastRecorded: await lastRecordedFire(db, job.name),
  });
  // A fire that came while the job was suspended or paused is never caught up, even when no replica was up to
  // record it then; a job stopped now catches up nothing (the fire claim records it skipped).
  if (plan.run) {
    const since = new Date(now.getTime() - Math.max(job.catch_up, REPORT_WINDOW_MS));
    const [state, events] = await Promise.all([
      readJobState(db, job.name),
      readJobEvents(db, { job: job.name, since }),
    ]);
    const stoppedAt = plan.run;
    if (!activeAt(events, state?.state ?? "active")(stoppedAt)) {
      plan.skipped.unshift({ fireTime: stoppedAt, reason: "the job was suspended or paused at that time" });
      plan.run = undefined;
    }
  }
  const refOf = (fireTime: Date) => {
    const slot = slotOf(fireTime);
    return { key: fireKeyOf(jobTaskName(job.name), slot), job: job.name, fireTime: slot };
  };
  const skipped = await recordSkippedFires(
    db,
    plan.skipped.map((s) => ({ ...refOf(s.fireTime), reason: s.reason })),
    ctx.replica,
  );
  if (skipped > 0) {
    const newest = plan.skipped[0]!;
    const oldest = plan.skipped[plan.skipped.length - 1]!;
    ctx.metrics.fire(job.name, "skipped", skipped);
    ctx.logger.warn(
      { job: job.name, skipped },
      `job ${job.name}: ${skipped} missed fires skipped, never run (${oldest.fireTime.toISOString()} … ` +
        `${newest.fireTime.toISOString()}; newest: ${newest.reason})`,
    );
  }
  if (!plan.run) return { job: job.name, skipped };
  const ref = refOf(plan.run);
  if (!(await coordinator.claim(ref))) return { job: job.name, skipped };
  try {
    await writeFire(ctx, job, plan.run);
    await coordinator.finish(ref.key, `catch-up: the latest fire missed within catch_up`);
  } catch (error) {
    await coordinator.fail(ref.key, `catch-up failed: ${(error as Error).message}`).catch(() => {});
    ctx.metrics.fire(job.name, "failed");
    throw error;
  }
  ctx.metrics.fire(job.name, "run");
  ctx.logger.info(`job ${job.name}: caught up the missed fire of ${plan.run.toISOString()}`);
  return { job: job.name, ran: plan.run, skipped };
}
