// The ledger's record of saved plans (`saved_plans`) and their signed decisions (`plan_approvals`): each status
// change is one statement naming the statuses it expects, and returns the row it moved or nothing when the plan
// was elsewhere already (another process got there first).
import { type SQL, sql } from "drizzle-orm";
import { type Executor, rows } from "../db/client.js";
import type { AuthorProof, SavedPlanStatus } from "../db/schema.js";
import { planNotices } from "../notify/outbox/write.js";
import type { Approval, PlanDocument, PlanKind } from "./document.js";

export type PlanOrigin = "saved" | "held";

export interface SavedPlanRow {
  id: string;
  kind: PlanKind;
  origin: PlanOrigin;
  author: string;
  author_proof: AuthorProof;
  author_signature: string | null;
  status: SavedPlanStatus;
  digest: string;
  config_digest: string | null;
  document: PlanDocument;
  total: string;
  items: number;
  approvals_required: number;
  reserved: string;
  created_at: Date;
  expires_at: Date;
  approved_at: Date | null;
  applied_at: Date | null;
  ended_at: Date | null;
  reason: string | null;
}

/** A plan's record without its document. */
export type PlanHead = Omit<SavedPlanRow, "document">;

/** Statuses in which a plan may still be approved, applied, rejected or expire. */
export const OPEN_STATUSES: readonly SavedPlanStatus[] = ["pending_approval", "approved", "applying"];

const COLUMNS = sql`id, kind, origin, author, author_proof, author_signature, status, digest, config_digest, document, total::text as total, items,
  approvals_required, reserved::text as reserved, created_at, expires_at, approved_at, applied_at, ended_at, reason`;

const HEAD_COLUMNS = `id, kind, origin, author, author_proof, author_signature, status, digest, config_digest, total::text as total, items,
  approvals_required, reserved::text as reserved, created_at, expires_at, approved_at, applied_at, ended_at, reason`;

type RawRow = Omit<
  SavedPlanRow,
  "document" | "created_at" | "expires_at" | "approved_at" | "applied_at" | "ended_at"
> & {
  document: PlanDocument | string;
  created_at: Date | string;
  expires_at: Date | string;
  approved_at: Date | string | null;
  applied_at: Date | string | null;
  ended_at: Date | string | null;
};

function toRow(raw: RawRow): SavedPlanRow {
  const when = (value: Date | string | null) => (value === null ? null : new Date(value));
  return {
    ...raw,
    document: typeof raw.document === "string" ? (JSON.parse(raw.document) as PlanDocument) : raw.document,
    created_at: new Date(raw.created_at),
    expires_at: new Date(raw.expires_at),
    approved_at: when(raw.approved_at),
    applied_at: when(raw.applied_at),
    ended_at: when(raw.ended_at),
  };
}

/**
 * Records a plan: its document without the approvals, digest and total. A plan that needs no approval starts
 * `approved` (and reserves its total as any approved plan does); otherwise `pending_approval`.
 */
export async function registerPlan(
  db: Executor,
  plan: PlanDocument,
  origin: PlanOrigin,
  /** The plan's file text when it has one (a new plan carries no approvals yet): stored as it is. */
  text?: string,
): Promise<SavedPlanRow> {
  const { approvals: _carried, ...document } = plan;
  const head = await insertPlan(
    db,
    plan,
    plan.items.length,
    origin,
    sql`${text ?? JSON.stringify(document)}`,
  );
  return { ...head, document: document as PlanDocument };
}

/**
 * Records a plan whose document the database puts together (`document`: an expression of JSON text), so a plan of
 * a million items never passes through this process whole: the approval gate's held runs.
 */
export async function registerPlanBuilt(
  db: Executor,
  plan: Omit<PlanDocument, "items" | "rejected" | "approvals">,
  items: number,
  origin: PlanOrigin,
  document: SQL,
): Promise<PlanHead> {
  return insertPlan(db, plan, items, origin, document);
}

async function insertPlan(
  db: Executor,
  plan: Pick<
    PlanDocument,
    | "plan_id"
    | "kind"
    | "author"
    | "author_proof"
    | "author_signature"
    | "digest"
    | "config_digest"
    | "total"
    | "approvals_required"
    | "created_at"
    | "expires_at"
  >,
  items: number,
  origin: PlanOrigin,
  document: SQL,
): Promise<PlanHead> {
  const approved = plan.approvals_required === 0;
  // A plan that needs approval is an `approval_needed` notification, written by the statement that records it.
  const [row] = await rows<RawRow>(
    db,
    sql`with registered as (
          insert into saved_plans (id, kind, origin, author, author_proof, author_signature, status, digest, config_digest, document, total, items,
            approvals_required, reserved, created_at, expires_at, approved_at)
          values (${plan.plan_id}, ${plan.kind}, ${origin}, ${plan.author}, ${plan.author_proof}, ${plan.author_signature},
            ${approved ? "approved" : "pending_approval"}, ${plan.digest}, ${plan.config_digest},
            (${document})::json, ${plan.total}::numeric, ${items}, ${plan.approvals_required},
            ${approved && plan.kind === "purchases" ? plan.total : "0"}::numeric, ${plan.created_at}::timestamptz,
            ${plan.expires_at}::timestamptz, ${approved ? plan.created_at : null}::timestamptz)
          returning ${sql.raw(HEAD_COLUMNS)}
        ), notice as (${planNotices("approval_needed", sql`select * from registered where status = 'pending_approval'`)})
        select *, null::json as document from registered`,
  );
  const { document: _none, ...head } = toRow(row!);
  return head;
}

/**
 * Where a plan file's own facts (beside its items, which the digest covers) differ from what the ledger recorded
 * for it: its kind, author, the approvals it needs, its config digest and digest field. A file edited there is
 * refused as one whose items were edited is (`show` names each difference), lest it show an approver another author
 * or fewer approvals than the ledger asks. Its times are not compared: `show` presents the ledger's (the one
 * `expires_at` that counts), whatever the file says.
 */
export function fileHeaderProblems(file: PlanDocument, row: PlanHead): string[] {
  const problems: string[] = [];
  const differs = (field: string, theirs: string, recorded: string) =>
    problems.push(
      `the file's ${field} ${JSON.stringify(theirs)} is not the recorded ${JSON.stringify(recorded)}`,
    );
  if (file.kind !== row.kind) differs("kind", file.kind, row.kind);
  if (file.author !== row.author) differs("author", file.author, row.author);
  if (file.author_proof !== row.author_proof) differs("author_proof", file.author_proof, row.author_proof);
  if (file.author_signature !== row.author_signature)
    differs("author_signature", String(file.author_signature), String(row.author_signature));
  if (file.approvals_required !== row.approvals_required)
    differs("approvals_required", String(file.approvals_required), String(row.approvals_required));
  if (file.config_digest !== row.config_digest)
    differs("config_digest", String(file.config_digest), String(row.config_digest));
  if (file.digest !== row.digest) differs("digest", file.digest, row.digest);
  return problems;
}

/**
 * The ledger's record of a plan. `file`: the plan file's own document, used in place of the recorded one (which is
 * then not read: a plan of a million items is a large value); the caller compares the file's digest with the
 * recorded `digest` before relying on it.
 */
export async function findPlan(
  db: Executor,
  id: string,
  file?: PlanDocument,
): Promise<SavedPlanRow | undefined> {
  const columns = file ? sql.raw(HEAD_COLUMNS) : COLUMNS;
  const [row] = await rows<RawRow>(db, sql`select ${columns} from saved_plans where id = ${id}`);
  if (!row) return undefined;
  return toRow(file ? { ...row, document: file } : row);
}

/** The newest plans first, without their documents (`saved list`). */
export async function listPlans(db: Executor, limit: number): Promise<Omit<SavedPlanRow, "document">[]> {
  const found = await rows<RawRow>(
    db,
    sql`select id, kind, origin, author, author_proof, author_signature, status, digest, config_digest,
          '{}'::json as document, total::text as total,
          items, approvals_required, reserved::text as reserved, created_at, expires_at, approved_at, applied_at,
          ended_at, reason
        from saved_plans order by created_at desc, id desc limit ${limit}`,
  );
  return found.map(toRow);
}

/** What a plan's purchases cancelled by hand before it was approved were planned at: no longer reserved. */
function cancelledSum(id: string) {
  return sql`coalesce((select sum(p.max_price) from purchases p
    where p.approval = ${`plan:${id}`} and p.state = 'cancelled'), 0)`;
}

/**
 * Enough valid approvals: the plan is approved, and reserves its total (purchases) from now until applied or ended,
 * less what a person cancelled of it meanwhile.
 */
export async function markApproved(db: Executor, id: string, now: Date): Promise<boolean> {
  const moved = await rows<{ id: string }>(
    db,
    sql`update saved_plans set status = 'approved', approved_at = ${now.toISOString()}::timestamptz,
          reserved = case when kind = 'purchases' then greatest(total - ${cancelledSum(id)}, 0) else 0 end
        where id = ${id} and status = 'pending_approval' returning id`,
  );
  return moved.length > 0;
}

/** An apply (or a run's release of a held plan) starts, or resumes one cut short. */
export async function markApplying(db: Executor, id: string): Promise<boolean> {
  const moved = await rows<{ id: string }>(
    db,
    sql`update saved_plans set status = 'applying' where id = ${id} and status in ('approved', 'applying') returning id`,
  );
  return moved.length > 0;
}

/** Every item is bought, sent or left: the plan is applied once and for all, and its reservation ends. */
export async function markApplied(db: Executor, id: string, now: Date): Promise<boolean> {
  const moved = await rows<{ id: string }>(
    db,
    sql`update saved_plans set status = 'applied', applied_at = ${now.toISOString()}::timestamptz, reserved = 0
        where id = ${id} and status in ('approved', 'applying') returning id`,
  );
  return moved.length > 0;
}

/** A rejection ends the plan. */
export async function markRejected(db: Executor, id: string, reason: string, now: Date): Promise<boolean> {
  const moved = await rows<{ id: string }>(
    db,
    sql`update saved_plans set status = 'rejected', reserved = 0, ended_at = ${now.toISOString()}::timestamptz,
          reason = ${reason}
        where id = ${id} and status in ('pending_approval', 'approved') returning id`,
  );
  return moved.length > 0;
}

/**
 * Held plans whose approvals are in and whose rows no run has released yet, without their documents (a held run of
 * a million purchases is a large value; its rows carry what a release needs).
 */
export async function approvedHeldPlans(db: Executor, now: Date): Promise<PlanHead[]> {
  const found = await rows<RawRow>(
    db,
    sql`select ${sql.raw(HEAD_COLUMNS)}, null::json as document from saved_plans
        where status = 'approved' and origin = 'held' and expires_at > ${now.toISOString()}::timestamptz
        order by approved_at, id`,
  );
  return found.map((row) => {
    const { document: _none, ...head } = toRow(row);
    return head;
  });
}

/** Held plans whose rows runs are buying, for the end of a run: those with nothing left to buy are applied. */
export async function applyingHeldPlans(db: Executor): Promise<string[]> {
  const found = await rows<{ id: string }>(
    db,
    sql`select id from saved_plans where status = 'applying' and origin = 'held'`,
  );
  return found.map((r) => r.id);
}

/** Records one approver's signed decision; false when that approver has decided on this plan already. */
export async function recordDecision(db: Executor, planId: string, approval: Approval): Promise<boolean> {
  const inserted = await rows<{ plan_id: string }>(
    db,
    sql`insert into plan_approvals (plan_id, approver, decision, digest, signature, reason, at)
        values (${planId}, ${approval.approver}, ${approval.decision}, ${approval.digest}, ${approval.signature},
          ${approval.reason}, ${approval.at}::timestamptz)
        on conflict (plan_id, approver) do nothing returning plan_id`,
  );
  return inserted.length > 0;
}

export async function readDecisions(db: Executor, planId: string): Promise<Approval[]> {
  const found = await rows<Omit<Approval, "at"> & { at: Date | string }>(
    db,
    sql`select approver, decision, digest, signature, reason, at from plan_approvals where plan_id = ${planId}
        order by at, approver`,
  );
  return found.map((a) => ({ ...a, at: new Date(a.at).toISOString() }));
}

/** Decisions of many plans at once (`saved list`). */
export async function decisionsOf(db: Executor, ids: readonly string[]): Promise<Map<string, Approval[]>> {
  const result = new Map<string, Approval[]>();
  if (ids.length === 0) return result;
  const found = await rows<Omit<Approval, "at"> & { plan_id: string; at: Date | string }>(
    db,
    sql`select plan_id, approver, decision, digest, signature, reason, at from plan_approvals
        where plan_id = any(${`{${ids.map((id) => `"${id}"`).join(",")}}`}::text[]) order by at, approver`,
  );
  for (const { plan_id, ...a } of found) {
    const list = result.get(plan_id) ?? [];
    list.push({ ...a, at: new Date(a.at).toISOString() });
    result.set(plan_id, list);
  }
  return result;
}

/** Plans still open (pending approval, approved, being applied), oldest first, without their documents. */
export async function listOpenPlans(db: Executor, now: Date): Promise<Omit<SavedPlanRow, "document">[]> {
  const found = await rows<RawRow>(
    db,
    sql`select ${sql.raw(HEAD_COLUMNS)}, '{}'::json as document from saved_plans
        where status in ('pending_approval', 'approved', 'applying') and expires_at > ${now.toISOString()}::timestamptz
        order by created_at, id limit 200`,
  );
  return found.map(toRow);
}
