// Where a plan stands with its approvers: how many distinct valid approvals it needs (the more of what it was saved
// with and what the config's rules say now), which count, which are void and why. `apply` trusts nothing else: every
// signature is checked against the config's keys, from the ledger and the file alike.
import type { ApprovalsConfig } from "../config/index.js";
import type { Executor } from "../db/client.js";
import { parseMoney } from "../money.js";
import {
  approvalsForTotal,
  approvalsForWebsites,
  authorUnproven,
  countApprovals,
  mergeApprovals,
  withUnprovenAuthor,
} from "./approvals.js";
import type { Approval, PlanDocument } from "./document.js";
import { markApproved, type PlanHead, readDecisions, recordDecision, type SavedPlanRow } from "./registry.js";

export interface ApprovalState {
  required: number;
  /** Why the plan's author is not proven (so it needs one approval more), when it is not. */
  authorUnproven: string | null;
  valid: string[];
  void: Array<{ approver: string; why: string }>;
  rejectedBy?: string;
  /** Every approver whose rejection is valid. */
  rejections: string[];
  /** Every decision seen, ledger and file together. */
  decisions: Approval[];
}

export async function approvalState(
  db: Executor,
  /** A website plan's record needs its document (its deletes count); a purchase plan's does not. */
  row: PlanHead & { document?: PlanDocument },
  approvals: ApprovalsConfig,
  carried: readonly Approval[] = [],
): Promise<ApprovalState> {
  const decisions = mergeApprovals(await readDecisions(db, row.id), carried);
  const counted = countApprovals(
    decisions,
    { plan_id: row.id, digest: row.digest, author: row.author },
    approvals.approvers,
  );
  const unproven = authorUnproven(row, approvals.approvers);
  return { required: requiredNow(row, approvals, unproven), authorUnproven: unproven, ...counted, decisions };
}

/**
 * The approvals a plan needs: what it was saved with, or more when the rules now ask more; one more than the rules
 * ask when its author is not proven (a claimed name, or a signature that no longer verifies).
 */
export function requiredNow(
  row: Pick<SavedPlanRow, "kind" | "total" | "approvals_required" | "author_proof"> & {
    document?: PlanDocument;
  },
  approvals: ApprovalsConfig,
  unproven: string | null,
): number {
  const now =
    row.kind === "purchases"
      ? approvalsForTotal(approvals, parseMoney(row.total))
      : approvalsForWebsites(
          approvals,
          row.document?.kind === "websites"
            ? row.document.items.filter((i) => i.action === "delete").length
            : 0,
        );
  // A claimed author's plan was saved with its extra approval; a signed one's was not, and needs it once unproven.
  const saved = withUnprovenAuthor(row.approvals_required, unproven !== null && row.author_proof === "key");
  return Math.max(saved, withUnprovenAuthor(now, unproven !== null));
}

/** One line saying what is missing, or null when the plan has its approvals. */
export function approvalShortfall(state: ApprovalState): string | null {
  if (state.rejectedBy) return `rejected by ${state.rejectedBy}`;
  if (state.valid.length >= state.required) return null;
  const have = state.valid.length ? ` (${state.valid.join(", ")})` : "";
  const voided = state.void.map((v) => `; void: ${v.why}`).join("");
  const more = state.authorUnproven ? ` (one more than its rules ask: ${state.authorUnproven})` : "";
  return `needs ${state.required} distinct approval${state.required === 1 ? "" : "s"}${more}, has ${state.valid.length}${have}${voided}`;
}

/** Whether a saved plan may be applied now: applied before, refused (and why), or admitted with its approvals. */
export type Admission =
  | { kind: "already_applied"; at: Date }
  | { kind: "refused"; reason: string }
  | { kind: "admitted" };

/**
 * The checks every apply makes of a recorded plan, whatever its kind: applied once already, rejected, expired, or
 * short of valid approvals. An admitted plan's approvals (from the ledger and the file) are recorded and the plan
 * marked approved, so `saved list` shows what was applied on whose word.
 */
export async function admitPlan(
  db: Executor,
  row: SavedPlanRow,
  approvals: ApprovalsConfig,
  carried: readonly Approval[] | undefined,
  now: Date,
): Promise<Admission> {
  if (row.status === "applied") return { kind: "already_applied", at: row.applied_at ?? row.created_at };
  if (row.status === "rejected")
    return { kind: "refused", reason: `plan ${row.id} was rejected: ${row.reason ?? ""}`.trim() };
  if (row.status === "cancelled")
    return { kind: "refused", reason: `plan ${row.id} was cancelled: ${row.reason ?? ""}`.trim() };
  if (row.status === "expired")
    return {
      kind: "refused",
      reason: `plan ${row.id} expired at ${row.expires_at.toISOString()} (approvals.plan_ttl)`,
    };
  const state = await approvalState(db, row, approvals, carried);
  const short = approvalShortfall(state);
  if (short) return { kind: "refused", reason: `plan ${row.id} ${short}` };
  for (const approval of state.decisions)
    if (approval.decision === "approve" && state.valid.includes(approval.approver))
      await recordDecision(db, row.id, approval);
  if (row.status === "pending_approval") await markApproved(db, row.id, now);
  return { kind: "admitted" };
}
