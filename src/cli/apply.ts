// `topsync apply FILE|ID [--stale refuse|drop]`: a saved plan done exactly, or refused with why, item by item.
// Exit 0 applied (or applied before: nothing bought again), 1 refused or some purchase not bought, 64 usage.
import { existsSync } from "node:fs";
import { ExitCode, TopsyncError, UsageError } from "../errors.js";
import type { PlanDocument } from "../plans/document.js";
import type { StaleItem } from "../plans/stale.js";
import type { RunProgress } from "../purchases/executor.js";
import { phoneView } from "../report/format.js";
import { inert } from "../text/inert.js";
import { gateFor } from "./approval-gate.js";
import type { CommandContext } from "./context.js";
import { openLedger } from "./database.js";
import { renderJson, write } from "./output.js";
import { progressReporter } from "./progress.js";
import { stoppable, throwIfStopped } from "./signals.js";

export interface ApplyFlags {
  stale?: string;
  showPhone?: boolean;
}

/** A plan named by its file, or by its id when no file has that name. */
export async function readTarget(
  target: string,
): Promise<{ id: string; file?: PlanDocument; path?: string }> {
  if (/^p_[a-z0-9]{8,32}$/.test(target) && !existsSync(target)) return { id: target };
  const { readPlanFile } = await import("../plans/document.js");
  const file = readPlanFile(target);
  return { id: file.plan_id, file, path: target };
}

export async function applyCommand(ctx: CommandContext, target: string, flags: ApplyFlags): Promise<void> {
  const stale = flags.stale ?? "refuse";
  if (stale !== "refuse" && stale !== "drop")
    throw new UsageError(`--stale must be refuse or drop; got "${stale}"`, "BAD_STALE");
  const plan = await readTarget(target);
  if (plan.file?.kind === "websites") {
    const { applyWebsitesCommand } = await import("./apply-websites.js");
    return applyWebsitesCommand(ctx, plan.id, plan.file, stale);
  }
  const database = await openLedger(ctx);
  const { findPlan } = await import("../plans/registry.js");
  const recorded = plan.file ? undefined : await findPlan(database.db, plan.id);
  if (recorded?.kind === "websites") {
    const { applyWebsitesCommand } = await import("./apply-websites.js");
    return applyWebsitesCommand(ctx, plan.id, undefined, stale);
  }
  const [{ applyPurchasePlan }, reseller, gate] = await Promise.all([
    import("../plans/apply-purchases.js"),
    ctx.reseller(),
    gateFor(ctx, database),
  ]);
  const actor = `apply:${process.pid}`;
  const deps = { database, reseller, config: ctx.config, logger: ctx.logger, actor, gate };
  const progress = progressReporter<RunProgress>(
    (p) =>
      `claimed ${p.claimed}  submitted ${p.submitted}  succeeded ${p.succeeded}  failed ${p.failed}  rejected ${p.rejected}`,
    ctx.logger,
  );
  const { value: result, signal } = await stoppable(ctx.logger, (signal) =>
    applyPurchasePlan(deps, plan.id, {
      stale,
      file: plan.file?.kind === "purchases" ? plan.file : undefined,
      onProgress: (p) => progress.update({ ...p }),
      signal,
    }).finally(progress.done),
  );
  const phones = phoneView(flags.showPhone === true);
  const staleLines = (list: readonly StaleItem[]) =>
    list
      .map((s) =>
        inert(`  ${phones.text(s.item.request_key)} (${phones.phone(s.item.phone)}): ${s.code}: ${s.why}`),
      )
      .join("\n");
  if (result.kind === "refused") {
    if (ctx.globals.json)
      write(
        renderJson({
          plan_id: plan.id,
          result: "refused",
          reasons: result.reasons,
          stale: result.stale.map((s) => ({ request_key: s.item.request_key, code: s.code, why: s.why })),
        }),
      );
    const detail = result.stale.length ? `\n${staleLines(result.stale)}` : "";
    throw new TopsyncError(
      "PLAN_REFUSED",
      `apply refused: ${result.reasons.join("\n")}${detail}`,
      ExitCode.failure,
    );
  }
  if (result.kind === "already_applied") {
    if (ctx.globals.json)
      write(renderJson({ plan_id: plan.id, result: "already_applied", applied_at: result.at.toISOString() }));
    else write(`plan ${plan.id} was applied at ${result.at.toISOString()}; nothing was bought again\n`);
    return;
  }
  const { summary } = result;
  if (ctx.globals.json) {
    write(
      renderJson({
        plan_id: plan.id,
        result: result.finished ? "applied" : result.plan.status === "expired" ? "expired" : "applying",
        status: result.plan.status,
        done_before: result.done,
        queued: result.queued,
        in_flight: result.inFlight,
        dropped: result.dropped.map((s) => ({ request_key: s.item.request_key, code: s.code, why: s.why })),
        later: result.later.map((s) => ({ request_key: s.item.request_key, code: s.code, why: s.why })),
        run: summary,
      }),
    );
  } else {
    write(
      `plan ${plan.id}: ${summary.claimed} claimed, ${summary.succeeded} succeeded, ${summary.failed} failed, ` +
        `${summary.rejected} rejected, ${summary.inDoubt} in_doubt, ${summary.unverified} unverified; spent ${summary.committed.toFixed(2)} of at most ${result.plan.total}` +
        `${result.done ? `; ${result.done} taken by an earlier apply or run (bought, or being sent), not bought again` : ""}\n`,
    );
    if (result.dropped.length)
      write(`left out ${result.dropped.length} stale items (--stale drop):\n${staleLines(result.dropped)}\n`);
    if (result.later.length)
      write(
        `left for the next apply ${result.later.length} items that cannot be bought now (the catalogue unread, or the budget or wallet floor short):\n${staleLines(result.later)}\n`,
      );
    write(
      result.finished
        ? `plan ${plan.id} is applied\n`
        : result.plan.status === "expired"
          ? `plan ${plan.id} expired at ${result.plan.expires_at.toISOString()} while it was being applied, so it is not applied; what it left unsent is cancelled, nothing more is bought under it\n`
          : result.inFlight > 0
            ? `plan ${plan.id} is not finished: ${result.inFlight} of its purchases are still being sent by another run (submitting); apply it again once they are answered\n`
            : result.later.length
              ? `plan ${plan.id} is not finished (some items cannot be bought now); apply it again to finish\n`
              : `plan ${plan.id} is not finished (purchases are still queued); apply it again to finish\n`,
    );
  }
  if (summary.stoppedBy) throw new TopsyncError("RUN_STOPPED", `the run stopped: ${summary.stoppedBy}`);
  throwIfStopped(signal, `is not bought (apply ${plan.id} again to buy the rest)`);
  if (summary.failed + summary.rejected + summary.inDoubt > 0 || !result.finished)
    process.exitCode = ExitCode.failure;
}
