// The daemon's housekeeping, every `verification.max_interval` (at least 1 s): a dead run's `submitting` rows
// become `in_doubt`; a fire a dead replica was running is taken over (its rows are written again, which adds
// nothing that exists); a run re-verifies `submitted`/`unverified` rows due, then buys what is queued; and once an
// hour the report's rollups of past days are sealed (src/purchases/rollups.ts).
import type { Config } from "../config/index.js";
import { type RunningFire, runningFires, takeOverFire, WEBSITES_JOB } from "../purchases/fire-ledger.js";
import { sweepDeadSubmitting } from "../purchases/ledger.js";
import { sealLedgerRollups } from "../purchases/rollups.js";
import type { DaemonContext } from "./context.js";
import type { FireCoordinator } from "./coordinator.js";
import { writeFire } from "./job-fire.js";
import type { ReplicaLiveness } from "./liveness.js";
import type { PurchaseRuns } from "./purchase-runs.js";
import { Waker } from "./waker.js";

export function sweepIntervalMs(config: Config): number {
  return Math.max(1000, config.verification.max_interval);
}

const SEAL_EVERY_MS = 3_600_000;

export class Sweeper {
  private readonly waker = new Waker();
  /** When this replica last sealed the rollups (clock ms). */
  private sealedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly ctx: DaemonContext,
    private readonly runs: PurchaseRuns,
    private readonly coordinator: FireCoordinator,
    private readonly liveness: ReplicaLiveness,
    private readonly wakeWorker: () => void,
  ) {}

  async run(): Promise<void> {
    while (!this.ctx.signal.aborted) {
      await this.ctx.work.track(this.sweep());
      await this.waker.wait(sweepIntervalMs(this.ctx.config), this.ctx.clock, this.ctx.signal);
    }
  }

  async sweep(): Promise<void> {
    const { logger } = this.ctx;
    try {
      await this.liveness.ensure();
      const { swept } = await sweepDeadSubmitting(this.ctx.database, this.ctx.replica);
      if (swept > 0)
        logger.warn(
          `${swept} purchases were left in submitting by a stopped run and are now in_doubt; settle them with topsync purchases resolve`,
        );
      await this.recoverFires();
      await this.seal();
      if (this.ctx.signal.aborted) return;
      const summary = await this.runs.run({ resumeVerification: true });
      if (summary.claimed > 0 || summary.succeeded + summary.failed + summary.unverified > 0)
        logger.info(
          `verifier sweep: ${summary.succeeded} succeeded, ${summary.failed} failed, ${summary.unverified} unverified; ` +
            `${summary.claimed} claimed`,
        );
    } catch (error) {
      logger.warn(`sweep failed, trying again later: ${(error as Error).message}`);
    }
  }

  private async seal(): Promise<void> {
    const now = this.ctx.clock.now();
    if (now - this.sealedAt < SEAL_EVERY_MS) return;
    this.sealedAt = now;
    const days = await sealLedgerRollups(this.ctx.database.db);
    if (days > 0) this.ctx.logger.debug(`sealed the report's rollups of ${days} days`);
  }

  /** Fires whose replica died while running them: job fires are written again here, website passes closed. */
  private async recoverFires(): Promise<void> {
    const { database, replica } = this.ctx;
    const byReplica = new Map<string, RunningFire[]>();
    for (const fire of await runningFires(database.db)) {
      if (fire.claimedBy === replica) continue;
      byReplica.set(fire.claimedBy, [...(byReplica.get(fire.claimedBy) ?? []), fire]);
    }
    for (const [owner, fires] of byReplica) {
      if (await database.isRunAlive(owner)) continue;
      for (const fire of fires) {
        if (await takeOverFire(database.db, fire.key, owner, replica)) await this.finishOrphan(fire, owner);
      }
    }
  }

  private async finishOrphan(fire: RunningFire, owner: string): Promise<void> {
    const { ctx, coordinator } = this;
    const job = ctx.config.purchases.find((j) => j.name === fire.job);
    if (fire.job === WEBSITES_JOB || !job) {
      await coordinator.fail(fire.key, `${owner} stopped while running it`);
      return;
    }
    const fireTime = job.at ?? fire.fireTime;
    try {
      await writeFire(ctx, job, fireTime);
    } catch (error) {
      // This fire fails alone (an unreadable recipients file, say); the sweep goes on with the others.
      const reason = `taken over from ${owner}, which stopped; writing its rows failed: ${(error as Error).message}`;
      await coordinator.fail(fire.key, reason);
      ctx.metrics.fire(job.name, "failed");
      ctx.logger.error(
        { job: job.name, err: error },
        `job ${job.name}: the fire of ${fire.fireTime.toISOString()} ${reason}`,
      );
      return;
    }
    await coordinator.finish(fire.key, `taken over from ${owner}, which stopped; rows written again`);
    ctx.logger.warn(
      `job ${job.name}: took over the fire of ${fire.fireTime.toISOString()} from ${owner}, which stopped`,
    );
    this.wakeWorker();
  }
}
