// An approver's decision on a saved plan (`approve`, `reject`): checked against the config (a named approver whose
// key is the one given, never the plan's author, once per approver), signed over the plan's digest, stored in the
// ledger, and carried in the plan file. Enough distinct approvals make the plan approved; a rejection ends it.

import type { KeyObject } from "node:crypto";
import type { Config } from "../config/index.js";
import type { Db } from "../db/client.js";
import { TopsyncError } from "../errors.js";
import { cancelHeld } from "../purchases/plan-rows.js";
import { type ApprovalState, approvalShortfall, approvalState } from "./approval-state.js";
import { isAuthor, keyMismatch, signDecision } from "./approvals.js";
import { type Approval, type PlanDocument, planDigest } from "./document.js";
import { expireOpenPlans } from "./expire.js";
import {
  fileHeaderProblems,
  findPlan,
  markApproved,
  markRejected,
  recordDecision,
  type SavedPlanRow,
} from "./registry.js";

/** A decision refused: exit 1, with why. */
export class DecisionRefused extends TopsyncError {
  constructor(message: string) {
    super("DECISION_REFUSED", message, 1);
  }
}

export interface DecisionRequest {
  approver: string;
  key: KeyObject;
  decision: "approve" | "reject";
  reason: string | null;
  now: Date;
  actor: string;
}

export interface DecisionResult {
  row: SavedPlanRow;
  approval: Approval;
  state: ApprovalState;
  /** The plan became approved with this decision. */
  approved: boolean;
  /** Held rows cancelled by a rejection. */
  cancelled: number;
}

export async function decide(
  db: Db,
  config: Config,
  target: { id: string; file?: PlanDocument },
  request: DecisionRequest,
): Promise<DecisionResult> {
  await expireOpenPlans(db, request.now, request.actor);
  const row = await findPlan(db, target.id);
  if (!row) throw new DecisionRefused(`this ledger never recorded plan ${target.id}`);
  if (target.file && planDigest(target.file) !== row.digest)
    throw new DecisionRefused(
      `the file's items do not match the digest the ledger recorded for plan ${row.id}: it was changed since it was saved`,
    );
  const header = target.file ? fileHeaderProblems(target.file, row) : [];
  if (header.length > 0)
    throw new DecisionRefused(
      `the file of plan ${row.id} was changed since it was saved: ${header.join("; ")}; nothing was signed`,
    );
  const open =
    request.decision === "approve" ? ["pending_approval", "approved"] : ["pending_approval", "approved"];
  if (!open.includes(row.status))
    throw new DecisionRefused(
      `plan ${row.id} is ${row.status}${row.reason ? ` (${row.reason})` : ""}; nothing to ${request.decision}`,
    );
  const mismatch = keyMismatch(config.approvals.approvers, request.approver, request.key);
  if (mismatch === "not_approver")
    throw new DecisionRefused(`${request.approver} is not among approvals.approvers in the config`);
  if (mismatch === "other_key")
    throw new DecisionRefused(
      `the key given is not ${request.approver}'s: approvals.approvers.${request.approver} names another`,
    );
  if (request.decision === "approve" && isAuthor(request.approver, row.author))
    throw new DecisionRefused(
      `${request.approver} wrote plan ${row.id} (as ${JSON.stringify(row.author)}); an author cannot approve their own plan`,
    );
  const approval = signDecision(row.id, request.key, {
    approver: request.approver,
    decision: request.decision,
    digest: row.digest,
    at: request.now.toISOString(),
    reason: request.reason,
  });
  const already = () =>
    new DecisionRefused(`${request.approver} has decided on plan ${row.id} already; an approver counts once`);
  let approved = false;
  let cancelled = 0;
  if (request.decision === "reject") {
    // The plan ends and the rejection is recorded together, or neither: a plan that moved since it was read (an
    // apply took it, it expired) is not rejected, and no rejection of it is left in the ledger to say otherwise.
    const rejected = await db.transaction(async (txn) => {
      const tx = txn as unknown as Db;
      const reason = `rejected by ${request.approver}: ${request.reason ?? ""}`.trim();
      if (!(await markRejected(tx, row.id, reason, request.now))) return false;
      if (!(await recordDecision(tx, row.id, approval))) throw already();
      return true;
    });
    if (!rejected) {
      const now = await findPlan(db, row.id);
      throw new DecisionRefused(
        `plan ${row.id} is ${now?.status ?? "gone"} now${now?.reason ? ` (${now.reason})` : ""}; nothing was rejected`,
      );
    }
    if (row.origin === "held")
      cancelled = await cancelHeld(db, row.id, {
        actor: request.actor,
        reason:
          `approval_rejected: saved plan ${row.id} rejected by ${request.approver}: ${request.reason ?? ""}`.trim(),
      });
  }
  if (request.decision === "approve" && !(await recordDecision(db, row.id, approval))) throw already();
  const state = await approvalState(db, row, config.approvals, target.file?.approvals);
  if (
    request.decision === "approve" &&
    approvalShortfall(state) === null &&
    row.status === "pending_approval"
  )
    approved = await markApproved(db, row.id, request.now);
  return { row: (await findPlan(db, row.id)) ?? row, approval, state, approved, cancelled };
}
