// `topsync show FILE|ID`, `saved list`, `saved show ID`: saved plans as they stand, changing nothing (reads of the
// ledger, and of the catalogue to mark stale items).
import { UsageError } from "../errors.js";
import type { PlanView } from "../plans/inspect.js";
import type { SavedPlanRow } from "../plans/registry.js";
import { phoneView } from "../report/format.js";
import { readTarget } from "./apply.js";
import type { CommandContext } from "./context.js";
import { openLedger } from "./database.js";
import { parseLimit } from "./limit.js";
import { renderJson, renderTable, write } from "./output.js";

export interface ShowFlags {
  format?: string;
  out?: string;
  showPhone?: boolean;
}

export async function showCommand(ctx: CommandContext, target: string, flags: ShowFlags): Promise<void> {
  const out = await import("./report-output.js");
  const format = out.parseFormat(flags.format, ctx.globals.json);
  if (flags.out) out.checkOut(flags.out);
  const plan = await readTarget(target);
  const database = await openLedger(ctx);
  const { inspectPlan, PlanNotRecorded } = await import("../plans/inspect.js");
  let view: PlanView;
  try {
    view = await inspectPlan(
      {
        database,
        config: ctx.config,
        logger: ctx.logger,
        reseller: () => ctx.reseller(),
        analytics: () => ctx.analytics(),
      },
      plan,
    );
  } catch (error) {
    // Only "no such plan" is the operator's mistake (64); a ledger that fails a read is a runtime failure (1).
    if (error instanceof PlanNotRecorded) throw new UsageError(error.message, "UNKNOWN_PLAN");
    throw error;
  }
  const [{ planDocument, planJson }, { renderReport }] = await Promise.all([
    import("../report/plan-document.js"),
    import("../report/render.js"),
  ]);
  const phones = phoneView(flags.showPhone === true);
  const text = renderReport(format, {
    document: () => planDocument(view, ctx.config.timezone, phones),
    json: () => planJson(view, phones),
  });
  out.deliver(out.processReportIo, text, flags.out, "plan");
}

export async function savedListCommand(ctx: CommandContext, flags: { limit?: string }): Promise<void> {
  const limit = parseLimit(flags.limit);
  const database = await openLedger(ctx);
  const { listPlans, decisionsOf } = await import("../plans/registry.js");
  const { countApprovals } = await import("../plans/approvals.js");
  const found = await listPlans(database.db, limit);
  const decisions = await decisionsOf(
    database.db,
    found.map((p) => p.id),
  );
  const now = new Date();
  const listed = found.map((p) => {
    const counted = countApprovals(
      decisions.get(p.id) ?? [],
      { plan_id: p.id, digest: p.digest, author: p.author },
      ctx.config.approvals.approvers,
    );
    return {
      id: p.id,
      kind: p.kind,
      origin: p.origin,
      status: shownStatus(p, now),
      author: p.author,
      author_proof: p.author_proof,
      approvals: counted.valid,
      approvals_required: p.approvals_required,
      total: p.total,
      items: p.items,
      created_at: p.created_at.toISOString(),
      expires_at: p.expires_at.toISOString(),
      applied_at: p.applied_at?.toISOString() ?? null,
      ended_at: p.ended_at?.toISOString() ?? null,
      reason: p.reason,
    };
  });
  if (ctx.globals.json) return write(renderJson(listed));
  if (listed.length === 0) return write("no saved plans\n");
  write(
    renderTable(listed, [
      { header: "ID", value: (p) => p.id },
      { header: "KIND", value: (p) => p.kind },
      { header: "STATUS", value: (p) => p.status },
      { header: "AUTHOR", value: (p) => (p.author_proof === "claimed" ? `${p.author} (claimed)` : p.author) },
      {
        header: "APPROVALS",
        value: (p) =>
          `${p.approvals.length}/${p.approvals_required}${p.approvals.length ? ` ${p.approvals.join(",")}` : ""}`,
      },
      { header: "TOTAL", value: (p) => p.total, align: "right" },
      { header: "ITEMS", value: (p) => String(p.items), align: "right" },
      { header: "CREATED", value: (p) => p.created_at },
      { header: "WHEN", value: (p) => p.applied_at ?? p.ended_at ?? `expires ${p.expires_at}` },
    ]),
  );
}

/** The ledger's status, or `expired` for an open plan past its time (a read shows it; the next write records it). */
function shownStatus(p: Pick<SavedPlanRow, "status" | "expires_at">, now: Date): string {
  return ["pending_approval", "approved", "applying"].includes(p.status) && p.expires_at <= now
    ? "expired"
    : p.status;
}
