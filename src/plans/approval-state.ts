// Where a plan stands with its approvers: how many distinct valid approvals it needs (the more of what it was saved
// with and what the config's rules say now), which count, which are void and why. `apply` trusts nothing else: every
// signature is checked against the config's keys, from the ledger and the file alike.
import type { ApprovalsConfig } from "../config/index.js";
import type { Executor } from "../db/client.js";
import { parseMoney } from "../money.js";
import { approvalsForTotal, approvalsForWebsites, countApprovals, mergeApprovals } from "./approvals.js";
import type { Approval } from "./document.js";
import { readDecisions, type SavedPlanRow } from "./registry.js";

export interface ApprovalState {
  required: number;
  valid: string[];
  void: Array<{ approver: string; why: string }>;
  rejectedBy?: string;
  /** Every decision seen, ledger and file together. */
  decisions: Approval[];
}

export async function approvalState(
  db: Executor,
  row: SavedPlanRow,
  approvals: ApprovalsConfig,
  carried: readonly Approval[] = [],
): Promise<ApprovalState> {
  const decisions = mergeApprovals(await readDecisions(db, row.id), carried);
  const counted = countApprovals(
    decisions,
    { plan_id: row.id, digest: row.digest, author: row.author },
    approvals.approvers,
  );
  return { required: requiredNow(row, approvals), ...counted, decisions };
}

/** The approvals a plan needs: what it was saved with, or more when the rules now ask more. */
export function requiredNow(
  row: Pick<SavedPlanRow, "kind" | "total" | "approvals_required" | "document">,
  approvals: ApprovalsConfig,
): number {
  const now =
    row.kind === "purchases"
      ? approvalsForTotal(approvals, parseMoney(row.total))
      : approvalsForWebsites(
          approvals,
          row.document.kind === "websites"
            ? row.document.items.filter((i) => i.action === "delete").length
            : 0,
        );
  return Math.max(row.approvals_required, now);
}

/** One line saying what is missing, or null when the plan has its approvals. */
export function approvalShortfall(state: ApprovalState): string | null {
  if (state.rejectedBy) return `rejected by ${state.rejectedBy}`;
  if (state.valid.length >= state.required) return null;
  const have = state.valid.length ? ` (${state.valid.join(", ")})` : "";
  const voided = state.void.map((v) => `; void: ${v.why}`).join("");
  return `needs ${state.required} distinct approval${state.required === 1 ? "" : "s"}, has ${state.valid.length}${have}${voided}`;
}
