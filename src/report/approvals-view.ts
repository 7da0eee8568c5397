// The approval gate in `plan` and `report`: which runs of the window would be held for approval (their cost above
// the first amount rule), and the saved plans still open — waiting for approvers, approved and holding their totals
// back from the budget, or being applied.
import type { Config } from "../config/index.js";
import type { Executor } from "../db/client.js";
import type { Money } from "../money.js";
import { formatMoney, parseMoney } from "../money.js";
import { approvalsForTotal, firstThreshold } from "../plans/approvals.js";
import { listOpenPlans } from "../plans/registry.js";
import type { ProjectedRun } from "../purchases/projection.js";
import { type Block, left, right, table, text } from "./document.js";
import { formatAmount } from "./format.js";

export interface OpenPlan {
  id: string;
  kind: string;
  origin: string;
  status: string;
  author: string;
  total: Money;
  items: number;
  approvalsRequired: number;
  reserved: Money;
  expiresAt: Date;
}

export interface ApprovalsView {
  /** The lowest amount tier; null without amount rules (nothing is held). */
  threshold: Money | null;
  /** Runs of the window whose cost is above it: held for approval when they run. */
  held: Array<{ run: number; cost: Money; approvals: number }>;
  open: OpenPlan[];
}

export async function readOpenPlans(db: Executor, now: Date): Promise<OpenPlan[]> {
  return (await listOpenPlans(db, now)).map((p) => ({
    id: p.id,
    kind: p.kind,
    origin: p.origin,
    status: p.status,
    author: p.author,
    total: parseMoney(p.total),
    items: p.items,
    approvalsRequired: p.approvals_required,
    reserved: parseMoney(p.reserved),
    expiresAt: p.expires_at,
  }));
}

export function approvalsView(
  config: Config,
  runs: readonly ProjectedRun[],
  open: OpenPlan[],
): ApprovalsView {
  const threshold = firstThreshold(config.approvals) ?? null;
  const held = threshold
    ? runs
        .filter((r) => r.weighed.gt(threshold))
        .map((r) => ({
          run: r.index,
          cost: r.weighed,
          approvals: approvalsForTotal(config.approvals, r.weighed),
        }))
    : [];
  return { threshold, held, open };
}

/**
 * What a dry run says of each run the gate would hold (`label` names the run): one line each, none without amount
 * rules or when no run is above the first threshold.
 */
export function heldRunNotes(
  config: Config,
  runs: readonly ProjectedRun[],
  label: (run: ProjectedRun) => string,
): string[] {
  const view = approvalsView(config, runs, []);
  return view.held.map((h) => {
    const run = runs.find((r) => r.index === h.run)!;
    return `${label(run)}: held for approval when it runs (${formatMoney(h.cost)} at live prices, above ${formatMoney(view.threshold!)}; ${h.approvals} approval${h.approvals === 1 ? "" : "s"} needed): nothing of it is bought until approved`;
  });
}

export function approvalBlocks(
  view: ApprovalsView,
  label: (run: number) => string,
  at: (d: Date) => string,
): Block[] {
  const blocks: Block[] = [];
  if (!view.threshold) blocks.push(text("No amount rule in approvals.rules: no run is held for approval."));
  else if (view.held.length === 0)
    blocks.push(
      text(`No run in the window costs more than ${formatAmount(view.threshold)}: none would be held.`),
    );
  else
    blocks.push(
      text(
        `Runs above ${formatAmount(view.threshold)} are held for approval (state held) when they run, and bought only once approved:`,
        "warning",
      ),
      table(
        "approval-runs",
        [left("Run"), right("Cost"), right("Approvals")],
        view.held.map((h) => [label(h.run), formatAmount(h.cost), String(h.approvals)]),
      ),
    );
  blocks.push(...openPlanBlocks(view.open, at));
  return blocks;
}

export function openPlanBlocks(open: readonly OpenPlan[], at: (d: Date) => string): Block[] {
  if (open.length === 0) return [text("No saved plan is waiting for approval or apply.")];
  return [
    table(
      "open-plans",
      [
        left("Plan"),
        left("Status"),
        left("Author"),
        right("Total"),
        right("Items"),
        right("Needs"),
        right("Reserved"),
        left("Expires"),
      ],
      open.map((p) => [
        p.id,
        p.status,
        p.author,
        formatAmount(p.total),
        String(p.items),
        String(p.approvalsRequired),
        formatAmount(p.reserved),
        at(p.expiresAt),
      ]),
    ),
  ];
}

export function openPlansJson(open: readonly OpenPlan[]) {
  return open.map((p) => ({
    id: p.id,
    kind: p.kind,
    origin: p.origin,
    status: p.status,
    author: p.author,
    total: p.total.toFixed(2),
    items: p.items,
    approvals_required: p.approvalsRequired,
    reserved: p.reserved.toFixed(2),
    expires_at: p.expiresAt.toISOString(),
  }));
}

export function approvalsJson(view: ApprovalsView) {
  return {
    threshold: view.threshold?.toFixed(2) ?? null,
    held_runs: view.held.map((h) => ({ run: h.run, cost: h.cost.toFixed(2), approvals: h.approvals })),
    open_plans: openPlansJson(view.open),
  };
}
