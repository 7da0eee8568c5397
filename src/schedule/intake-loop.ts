// The intake table from the daemon: polled every `intake.poll_interval` and, on PostgreSQL, woken
// at once by a NOTIFY on INTAKE_CHANNEL (a trigger on purchase_requests sends it). Each poll moves every
// pending request into the ledger, waking the purchase worker after each batch it moves and once at the end (its
// periodic tick).
import { ingestIntake } from "../purchases/sources/intake.js";
import type { DaemonContext } from "./context.js";
import { Waker } from "./waker.js";

export const INTAKE_CHANNEL = "topsync_purchase_requests";

export class IntakeLoop {
  private readonly waker = new Waker();

  constructor(
    private readonly ctx: DaemonContext,
    private readonly wakeWorker: () => void,
  ) {}

  /** Runs until the daemon stops; resolves then. */
  async run(): Promise<void> {
    const unlisten = await this.listen();
    try {
      while (!this.ctx.signal.aborted) {
        await this.ctx.work.track(this.poll());
        await this.waker.wait(this.ctx.config.intake.poll_interval, this.ctx.clock, this.ctx.signal);
      }
    } finally {
      await unlisten().catch(() => {});
    }
  }

  /** Polls now (a NOTIFY arrived). */
  wake(): void {
    this.waker.wake();
  }

  private async poll(): Promise<void> {
    const { config, logger } = this.ctx;
    if (config.intake.enabled) {
      try {
        let moved = 0;
        for (;;) {
          const batch = await ingestIntake(this.ctx.database.db, config.intake.batch_size, this.ctx.replica);
          moved += batch.moved;
          // The worker buys what is in while the rest moves: a large intake does not hold back the first purchase.
          if (batch.moved > 0) this.wakeWorker();
          if (batch.refused > 0)
            logger.warn(
              `intake: ${batch.refused} requests refused, not queued (purchase_requests.error says why)`,
            );
          const badSizes = batch.invalid - batch.refused;
          if (badSizes > 0) logger.warn(`intake: ${badSizes} requests name a plan size that is not a size`);
          if (batch.moved < config.intake.batch_size || this.ctx.signal.aborted) break;
        }
        if (moved > 0) logger.info({ moved }, `intake: ${moved} requests moved into the ledger`);
      } catch (error) {
        logger.warn(`intake poll failed, trying again later: ${(error as Error).message}`);
      }
    }
    this.wakeWorker();
  }

  private async listen(): Promise<() => Promise<void>> {
    if (!this.ctx.config.intake.enabled) return async () => {};
    try {
      return await this.ctx.database.listen(INTAKE_CHANNEL, () => this.wake());
    } catch (error) {
      this.ctx.logger.warn(
        { err: error },
        `cannot LISTEN on ${INTAKE_CHANNEL}; intake is polled every ${this.ctx.config.intake.poll_interval} ms only`,
      );
      return async () => {};
    }
  }
}
