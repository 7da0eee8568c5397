// The daemon's passes over stored provider notifications, from the moment the database is connected until the
// daemon stops: at once and then every 30 s it processes those left `received` (notification-backlog.ts) and
// looks again at unmatched ones that a purchase gone in_doubt since may explain (retryUnmatched); and every
// 30 s, even while a pass is long, it renews this replica's claims on the notifications it is processing.
import type { Clock } from "../clock.js";
import type { Logger } from "../log/logger.js";
import type { NotificationBacklog } from "../purchases/notification-backlog.js";

export const NOTIFICATION_PASS_MS = 30_000;
/** How long a stop waits for a pass in progress; what it leaves is taken up again once its claim lapses. */
const STOP_WAIT_MS = 5000;

export interface NotificationPassParts {
  backlog: NotificationBacklog;
  logger: Logger;
  clock: Clock;
}

export class NotificationPasses {
  private readonly stopping = new AbortController();
  private loop: Promise<void> | undefined;
  private renewal: NodeJS.Timeout | undefined;

  constructor(private readonly parts: NotificationPassParts) {}

  start(): void {
    const { backlog, logger } = this.parts;
    this.renewal = setInterval(() => {
      backlog
        .renew()
        .catch((error: unknown) =>
          logger.warn(`notifications: cannot renew this replica's claims: ${(error as Error).message}`),
        );
    }, NOTIFICATION_PASS_MS);
    this.renewal.unref();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    clearInterval(this.renewal);
    if (!this.loop) return;
    const gaveUp = new AbortController();
    await Promise.race([this.loop, this.parts.clock.sleep(STOP_WAIT_MS, gaveUp.signal).catch(() => {})]);
    gaveUp.abort();
  }

  private async run(): Promise<void> {
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      await this.pass(signal);
      await this.parts.clock.sleep(NOTIFICATION_PASS_MS, signal).catch(() => {});
    }
  }

  private async pass(signal: AbortSignal): Promise<void> {
    const { backlog, logger } = this.parts;
    try {
      const processed = await backlog.pass(signal);
      if (processed > 0) logger.info(`notifications: processed ${processed} that were left received`);
    } catch (error) {
      logger.warn(`notifications: the pass over those left received failed: ${(error as Error).message}`);
    }
    if (signal.aborted) return;
    try {
      // Counted by the backlog's onProcessed, as the notifications it processes are: once per outcome reached.
      await backlog.retryUnmatched(signal);
    } catch (error) {
      logger.warn(`notifications: ${(error as Error).message}`);
    }
  }
}
