// The daemon's notifier: delivers the outbox on every replica (claims keep each message to one deliverer),
// counted on /metrics, until the daemon stops.
import { Notifier } from "../notify/notifier.js";
import type { DaemonContext } from "./context.js";

export async function startNotifier(ctx: DaemonContext): Promise<void> {
  const notifier = new Notifier({
    database: ctx.database,
    config: ctx.config,
    logger: ctx.logger,
    clock: ctx.clock,
    claimer: ctx.replica,
    observer: ctx.metrics.notifyObserver,
  });
  try {
    await notifier.run(ctx.signal);
  } finally {
    await notifier.close();
  }
}
