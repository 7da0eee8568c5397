// One fire of a purchase job: its ledger rows (idempotent by request_key, so a fire written twice adds
// nothing), then a run that buys the job's due purchases. A fire's rows are what makes it "run".
import type { PurchaseJob } from "../config/index.js";
import type { Db } from "../db/client.js";
import type { RunSummary } from "../purchases/executor.js";
import { recordFireOutcome, slotOf } from "../purchases/fire-ledger.js";
import { gateRequired } from "../purchases/gate.js";
import { type FireResult, fireJob } from "../purchases/sources/jobs.js";
import type { DaemonContext } from "./context.js";
import type { PurchaseRuns } from "./purchase-runs.js";

/** The fire time a job's rows carry: the `at` time itself for a one-off job, else the schedule's slot. */
export function fireTimeOf(job: PurchaseJob, slot: Date): Date {
  return job.at ?? slot;
}

export { slotOf };

export async function writeFire(ctx: DaemonContext, job: PurchaseJob, fireTime: Date): Promise<FireResult> {
  const write = (db: Db) =>
    fireJob(db, job, fireTime, {
      configDir: ctx.configDir,
      defaultAttempts: ctx.config.reseller.retry.max_attempts,
      actor: ctx.replica,
    });
  // The approval gate weighs a fire whole: with rules configured, its rows appear together or not at all.
  // (A drizzle transaction: the fire's inserts take savepoints of it.)
  const result = gateRequired(ctx.config)
    ? await ctx.database.db.transaction((tx) => write(tx as unknown as Db))
    : await write(ctx.database.db);
  ctx.logger.info(
    { job: job.name, fire: fireTime.toISOString(), recipients: result.recipients, inserted: result.inserted },
    `job ${job.name} fire ${fireTime.toISOString()}: ${result.recipients} recipients, ${result.inserted} new purchases`,
  );
  return result;
}

/** What a fire's run did, in one word: held for approval, bought, rejected (nothing bought), or left queued. */
export function fireOutcome(summary: RunSummary): string {
  if (summary.held.length > 0) return "held";
  if (summary.submitted > 0) return "bought";
  if (summary.rejected > 0 || summary.failed > 0 || summary.inDoubt > 0) return "rejected";
  return summary.paused.length > 0 ? "paused" : "queued";
}

/** Writes a fire and buys the job's due purchases; retries are handed to the worker so the run ends promptly. */
export async function runJobFire(
  ctx: DaemonContext,
  runs: PurchaseRuns,
  job: PurchaseJob,
  fireTime: Date,
  wakeWorker: () => void,
  fireKey?: string,
): Promise<void> {
  await writeFire(ctx, job, fireTime);
  if (ctx.signal.aborted) return;
  const summary = await runs.run({ jobName: job.name, resumeVerification: false, retryWaitMs: 0 });
  if (fireKey)
    await recordFireOutcome(ctx.database.db, fireKey, fireOutcome(summary)).catch((error: unknown) =>
      ctx.logger.warn(
        { err: error },
        `job ${job.name}: could not record its fire's outcome: ${String(error)}`,
      ),
    );
  if (summary.claimed > 0)
    ctx.logger.info(
      { job: job.name, run: summary.runId },
      `job ${job.name}: ${summary.claimed} claimed, ${summary.submitted} submitted, ${summary.succeeded} succeeded, ` +
        `${summary.failed} failed, ${summary.rejected} rejected, ${summary.inDoubt} in_doubt`,
    );
  if (summary.retried > 0) wakeWorker();
  if (summary.stoppedBy) throw new Error(`the run stopped: ${summary.stoppedBy}`);
}
