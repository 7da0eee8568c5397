// Buys whatever is queued, whoever queued it (intake, a fire of any replica, a dead replica's leftovers):
// a wake-up starts a pass, wake-ups during a pass are folded into one more pass. Two passes may run at
// once, so one that is only waiting for its purchases to verify does not hold up new work.
import type { DaemonContext } from "./context.js";
import type { PurchaseRuns } from "./purchase-runs.js";

const MAX_PASSES = 2;

export class PurchaseWorker {
  private active = 0;
  private pending = false;

  constructor(
    private readonly ctx: DaemonContext,
    private readonly runs: PurchaseRuns,
  ) {}

  wake(): void {
    if (this.ctx.signal.aborted) return;
    if (this.active >= MAX_PASSES) {
      this.pending = true;
      return;
    }
    this.active++;
    void this.pass().finally(() => {
      this.active--;
      if (this.pending) {
        this.pending = false;
        this.wake();
      }
    });
  }

  private async pass(): Promise<void> {
    try {
      const summary = await this.runs.run({ resumeVerification: false });
      if (summary.claimed > 0)
        this.ctx.logger.info(
          { run: summary.runId, claimed: summary.claimed, submitted: summary.submitted },
          `purchase pass: ${summary.claimed} claimed, ${summary.submitted} submitted, ${summary.succeeded} succeeded, ` +
            `${summary.failed} failed, ${summary.rejected} rejected, ${summary.inDoubt} in_doubt`,
        );
    } catch (error) {
      this.ctx.logger.error(`purchase pass failed: ${(error as Error).message}`);
    }
  }
}
