// One website reconcile pass from the daemon: under the advisory lock so one replica
// reconciles at a time, in the configured mode, recorded in website_runs and in the metrics.
import { reconcile, reconcileDeps } from "../websites/reconcile.js";
import { WEBSITES_LOCK, withTryLock } from "./advisory-lock.js";
import type { DaemonContext } from "./context.js";

export async function runWebsitePass(ctx: DaemonContext): Promise<void> {
  const { config, logger } = ctx;
  const outcome = await withTryLock(ctx.database, WEBSITES_LOCK, async () => {
    const deps = reconcileDeps(config, ctx.analytics, ctx.database.db, {
      logger,
      clock: ctx.clock,
      signal: ctx.signal,
    });
    try {
      return await reconcile(deps, { mode: config.websites.mode });
    } catch (error) {
      ctx.metrics.websitePass("failed");
      throw error;
    }
  });
  if (!outcome.locked) {
    logger.info("website pass skipped: another replica is reconciling");
    return;
  }
  const pass = outcome.value;
  ctx.metrics.websitePass(pass.status, pass.plan.summary, new Date(ctx.clock.now()));
  const s = pass.plan.summary;
  logger.info(
    { website_run: pass.runId, status: pass.status },
    `website pass ${pass.runId} (${pass.mode}): ${pass.status}; plan: ${s.create} create, ${s.update} update, ` +
      `${s.delete} delete, ${s.unchanged} unchanged, ${s.unmanaged} unmanaged, ${s.conflicts} conflicts` +
      `${pass.errors.length ? `; ${pass.errors.length} errors` : ""}`,
  );
}
