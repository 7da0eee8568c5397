// `topsync apply` of a website plan: exactly its changes, or refused with why, change by change.
import { ExitCode, TopsyncError } from "../errors.js";
import type { PlanDocument } from "../plans/document.js";
import { inert } from "../text/inert.js";
import type { CommandContext } from "./context.js";
import { openLedger } from "./database.js";
import { renderJson, write } from "./output.js";
import { websitesLocked } from "./websites-lock.js";

export async function applyWebsitesCommand(
  ctx: CommandContext,
  id: string,
  file: PlanDocument | undefined,
  stale: "refuse" | "drop",
): Promise<void> {
  const [{ applyWebsitePlan }, database, api] = await Promise.all([
    import("../plans/apply-websites.js"),
    openLedger(ctx),
    ctx.analytics(),
  ]);
  const result = await websitesLocked(database, () =>
    applyWebsitePlan({ api, db: database.db, config: ctx.config, logger: ctx.logger }, id, {
      stale,
      file: file?.kind === "websites" ? file : undefined,
    }),
  );
  const lines = (list: Array<{ item: { action: string; domain: string }; why: string }>) =>
    list.map((s) => inert(`  ${s.item.action} ${s.item.domain}: ${s.why}`)).join("\n");
  if (result.kind === "refused") {
    if (ctx.globals.json)
      write(
        renderJson({
          plan_id: id,
          result: "refused",
          reasons: result.reasons,
          stale: result.stale.map((s) => ({ action: s.item.action, domain: s.item.domain, why: s.why })),
        }),
      );
    const detail = result.stale.length ? `\n${lines(result.stale)}` : "";
    throw new TopsyncError(
      "PLAN_REFUSED",
      `apply refused: ${result.reasons.join("\n")}${detail}`,
      ExitCode.failure,
    );
  }
  if (result.kind === "already_applied") {
    if (ctx.globals.json)
      write(renderJson({ plan_id: id, result: "already_applied", applied_at: result.at.toISOString() }));
    else write(`plan ${id} was applied at ${result.at.toISOString()}; nothing was changed again\n`);
    return;
  }
  const { applied } = result;
  if (ctx.globals.json)
    write(
      renderJson({
        plan_id: id,
        result: result.finished ? "applied" : "applying",
        created: applied.created,
        updated: applied.updated,
        deleted: applied.deleted,
        done_before: result.done,
        errors: applied.errors,
        dropped: result.dropped.map((s) => ({ action: s.item.action, domain: s.item.domain, why: s.why })),
      }),
    );
  else {
    write(
      `plan ${id}: ${applied.created} created, ${applied.updated} updated, ${applied.deleted} deleted` +
        `${result.done ? `; ${result.done} done by an earlier apply` : ""}${applied.errors.length ? `; ${applied.errors.length} failed` : ""}\n`,
    );
    for (const error of applied.errors) write(inert(`  ${error.domain}: ${error.message}\n`));
    if (result.dropped.length)
      write(`left out ${result.dropped.length} stale changes (--stale drop):\n${lines(result.dropped)}\n`);
    write(
      result.finished ? `plan ${id} is applied\n` : `plan ${id} is not finished; apply it again to finish\n`,
    );
  }
  if (!result.finished) process.exitCode = ExitCode.failure;
}
