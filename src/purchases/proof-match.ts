// Which purchase a piece of the provider's evidence about a transaction (a notification, a statement line) can be.
// The evidence names a transaction: its reference, phone, amount and time. A verify read of that reference proves
// the transaction is as described; it never proves which of our purchases made it. So evidence whose reference no
// purchase carries goes to an in_doubt purchase only when nothing else in the ledger could own that transaction:
// no other in_doubt purchase, no purchase in flight (submitting, submitted or unverified: its own answer may be on
// its way, or name another reference for what is really this transaction) and no settled purchase without a
// reference (a person settled it, or the provider refused it, without knowing its transaction), with the same
// phone and amount and a POST within the window of the evidence's time. One rule for both sources.
import { sql } from "drizzle-orm";
import { type Executor, rows } from "../db/client.js";
import type { PurchaseState } from "../db/schema.js";
import { formatDuration } from "../duration.js";
import { parseMoney } from "../money.js";
import { visiblePhone } from "../reseller/schemas.js";
import { MIN_VISIBLE_DIGITS, namesPhone, sameVisibleDigits } from "./verify-check.js";

/** A transaction as the provider describes it. */
export interface Evidence {
  reference: string;
  /** As the provider shows it: masked (`0803****567`) or not, national or international. */
  phone: string | null;
  /** Exact decimal text. */
  amount: string | null;
  /** The plan as the provider names it (a notification's `plan`): matches where the amount is missing. */
  plan: string | null;
  /** When the provider says the transaction was made. */
  at: Date | null;
  /** What the evidence is, for the reasons written: "provider notification 12", "statement.csv line 3". */
  what: string;
}

/** The purchase that carries the evidence's reference already. */
export interface OwnPurchase {
  id: number;
  state: PurchaseState;
  phone: string;
  /** Charged, or else listed. */
  amount: string;
  submitted_at: Date | null;
  /** Its note (`verify_mismatch: …`, `reference_clash: …`), if any. */
  note: string | null;
  /**
   * The reference is of an attempt before a person requeued the purchase (`state` is how that attempt ended): the
   * evidence is about that transaction, not the purchase's current attempt.
   */
  earlier: boolean;
}

/** A purchase that could own the evidence's transaction. */
export interface Candidate {
  id: number;
  state: PurchaseState;
  phone: string;
  /** Charged, or else listed. */
  amount: string | null;
  plan_id: string | null;
  plan_name: string | null;
  /** When its last purchase POST went (its last move to `submitting`). */
  posted_at: Date;
  /** Pruned from the ledger (`purchases prune`), settled without a reference: kept as a rival only. */
  pruned?: boolean;
}

export type ProofMatch =
  /** A purchase carries the reference: the evidence is about it. */
  | { kind: "owned"; purchase: OwnPurchase }
  /** One in_doubt purchase, and nothing else, could own it; `why` says so for its history. */
  | { kind: "unique"; purchase: Candidate; why: string }
  /** None, or more than one: nothing is settled; `candidates` are the in_doubt purchases it could be. */
  | { kind: "unmatched"; reason: string; candidates: number[] };

/** Purchases near the evidence that one look reads; more, and no purchase can be shown to be the only one. */
const MAX_NEARBY = 1000;

/** The end of the reason given when no in_doubt purchase could be it: such evidence may be looked at again. */
export const NO_IN_DOUBT_CANDIDATE = "no in_doubt purchase could be it";

/** Which purchase the evidence can be, by the rule above; `windowMs` bounds its time against each POST. */
export async function matchProof(db: Executor, evidence: Evidence, windowMs: number): Promise<ProofMatch> {
  const own = await purchaseWithReference(db, evidence.reference);
  if (own) return { kind: "owned", purchase: own };
  const reference = evidence.reference;
  const shown = evidence.phone ? visiblePhone(evidence.phone) : undefined;
  const visible = shown && namesPhone(shown) ? shown : undefined;
  if (!evidence.at || !visible)
    return unmatched(
      `no purchase carries reference ${reference}, and ${evidence.what} has no date or phone to match (a phone shows at least ${MIN_VISIBLE_DIGITS} of its digits)`,
    );
  const found = await nearbyPurchases(db, visible, evidence.at, windowMs);
  // Uniqueness is only known over every purchase that could be it: a look that could not read them all proves none.
  if (found.length > MAX_NEARBY)
    return unmatched(
      `no purchase carries reference ${reference}, and more than ${MAX_NEARBY} purchases show its phone's visible digits near its time: which one it is cannot be told; a person decides`,
    );
  const could = found.filter((c) => couldBe(evidence, c));
  const inDoubt = could.filter((c) => c.state === "in_doubt");
  const others = could.filter((c) => c.state !== "in_doubt");
  const ids = inDoubt.map((c) => c.id);
  if (inDoubt.length === 0)
    return unmatched(`no purchase carries reference ${reference}, and ${NO_IN_DOUBT_CANDIDATE}`);
  const window = formatDuration(windowMs);
  const rivals = others.map((c) => `${c.id} (${c.state}${c.pruned ? ", pruned" : ""})`).join(", ");
  if (inDoubt.length > 1)
    return unmatched(
      `${inDoubt.length} in_doubt purchases could be it (${ids.join(", ")})${rivals ? `, and purchase ${rivals} too` : ""}: a person decides`,
      ids,
    );
  const only = inDoubt[0]!;
  if (others.length > 0)
    return unmatched(
      `in_doubt purchase ${only.id} could be it, but so could purchase ${rivals}, with the same phone and amount and a POST within ${window}: the verify answer of ${reference} would prove the transaction, not which purchase made it; a person decides`,
      ids,
    );
  return {
    kind: "unique",
    purchase: only,
    why: `purchase ${only.id} is the only purchase that could own it: the same phone and amount, its POST at ${only.posted_at.toISOString()} within ${window} of ${evidence.what} (${evidence.at.toISOString()}), and no other purchase with that phone and amount in that window (in_doubt, in flight, or settled without a reference)`,
  };
}

/**
 * The evidence matched purchase `id` a while ago (verify reads since, or a report since): whether it still does and
 * why, or why not. The ledger may have moved meanwhile: another purchase may carry the reference, or have become
 * another candidate.
 */
export async function stillOnly(
  db: Executor,
  evidence: Evidence,
  windowMs: number,
  id: number,
): Promise<{ only: true; why: string } | { only: false; reason: string }> {
  const again = await matchProof(db, evidence, windowMs);
  if (again.kind === "unique" && again.purchase.id === id) return { only: true, why: again.why };
  const reason =
    again.kind === "owned"
      ? `purchase ${again.purchase.id} carries reference ${evidence.reference} now`
      : again.kind === "unique"
        ? `purchase ${again.purchase.id} could be it now`
        : again.reason;
  return { only: false, reason: `purchase ${id} is no longer the only purchase it can be: ${reason}` };
}

function unmatched(reason: string, candidates: number[] = []): ProofMatch {
  return { kind: "unmatched", reason, candidates };
}

/**
 * The purchase that carries `reference`, or did: in the ledger, as an attempt before a person requeued it (its state
 * is how that attempt ended), or pruned from the ledger (`purchases prune` keeps the reference; a pruned one is
 * settled). The transaction is that purchase's, whoever else has the same phone and amount.
 */
async function purchaseWithReference(db: Executor, reference: string): Promise<OwnPurchase | undefined> {
  const [row] = await rows<{
    id: number | string;
    state: PurchaseState;
    phone: string;
    amount: string | null;
    submitted_at: Date | string | null;
    note: string | null;
    earlier: boolean;
  }>(
    db,
    sql`(select id, state, phone, coalesce(charged_amount, amount)::text as amount, submitted_at, note,
          false as earlier from purchases where reference = ${reference} limit 1)
        union all
        (select purchase_id, state, '', null, null, null, true from earlier_references where reference = ${reference})
        union all
        (select purchase_id, state, '', null, null, null, false from pruned_purchases where reference = ${reference}
          limit 1)
        limit 1`,
  );
  if (!row) return undefined;
  return {
    id: Number(row.id),
    state: row.state,
    phone: row.phone,
    amount: row.amount ?? "0",
    submitted_at: row.submitted_at === null ? null : new Date(row.submitted_at),
    note: row.note,
    earlier: row.earlier,
  };
}

/** A purchase's attempt before a person requeued it, as a verify answer of its reference is checked against. */
export interface EarlierAttempt {
  /** The purchase. */
  id: number;
  reference: string;
  /** How the attempt ended: failed or rejected. */
  state: PurchaseState;
  /** The purchase's phone (a requeue keeps it). */
  phone: string;
  /** What the attempt was charged, or else listed at; null when requeued before topsync kept it. */
  amount: string | null;
  /** Its late delivery was flagged already, and its charge counted. */
  delivered: boolean;
}

/**
 * The attempt `reference` was, of the purchase that carried it before a person requeued it (`earlier_references`),
 * read with that purchase; undefined when it is no such attempt, or its purchase was pruned.
 */
export async function earlierAttempt(db: Executor, reference: string): Promise<EarlierAttempt | undefined> {
  const [row] = await rows<{
    id: number | string;
    state: PurchaseState;
    phone: string;
    amount: string | null;
    delivered: boolean;
  }>(
    db,
    sql`select e.purchase_id as id, e.state, p.phone, e.amount::text as amount, e.delivered_at is not null as delivered
        from earlier_references e join purchases p on p.id = e.purchase_id where e.reference = ${reference}`,
  );
  return row ? { ...row, id: Number(row.id), reference } : undefined;
}

/**
 * Purchases with the phone's visible digits whose last POST is within `windowMs` of `at`, among those that could own
 * a transaction nobody has the reference of: unsettled ones, submitted ones, and settled ones without a reference
 * (each part found by an index: the unsettled states, submitted_at, and settled_at of settled purchases without a
 * reference; a POST in the window was sent, answered and settled no earlier than the window's start), pruned ones
 * of those last included (`pruned_purchases` keeps their phone, amount, plan and POST; found by posted_at).
 */
async function nearbyPurchases(
  db: Executor,
  visible: string,
  at: Date,
  windowMs: number,
): Promise<Candidate[]> {
  const phone = visible.replace(/\*/g, "_");
  const from = new Date(at.getTime() - windowMs).toISOString();
  const to = new Date(at.getTime() + windowMs).toISOString();
  const found = await rows<{
    id: number | string;
    state: PurchaseState;
    phone: string;
    amount: string | null;
    plan_id: string | null;
    plan_name: string | null;
    posted_at: Date | string;
    pruned: boolean;
  }>(
    db,
    sql`with near as (
          select id from purchases where state in ('submitting', 'in_doubt', 'unverified') and phone like ${phone}
          union
          select id from purchases where state = 'submitted' and submitted_at >= ${from} and phone like ${phone}
          union
          select id from purchases where reference is null and state in ('succeeded', 'failed')
            and settled_at >= ${from} and phone like ${phone}
        )
        select * from (
          select p.id, p.state, p.phone, coalesce(p.charged_amount, p.amount)::text as amount, p.plan_id, p.plan_name,
            e.posted_at, false as pruned
          from near join purchases p on p.id = near.id
          cross join lateral (select max(at) as posted_at from purchase_events
            where purchase_id = p.id and to_state = 'submitting') e
          where e.posted_at between ${from} and ${to}
          union all
          select q.purchase_id, q.state, q.phone, q.amount::text, q.plan_id, q.plan_name, q.posted_at, true
          from pruned_purchases q
          where q.posted_at between ${from} and ${to} and q.phone like ${phone}
        ) found
        order by id limit ${MAX_NEARBY + 1}`,
  );
  return found.map((row) => ({
    ...row,
    id: Number(row.id),
    posted_at: new Date(row.posted_at),
    pruned: row.pruned || undefined,
  }));
}

/** The same phone, and the same amount or plan. */
function couldBe(evidence: Evidence, c: Candidate): boolean {
  if (!evidence.phone || !sameVisibleDigits(evidence.phone, c.phone)) return false;
  if (evidence.amount !== null && c.amount !== null && parseMoney(evidence.amount).eq(parseMoney(c.amount)))
    return true;
  const plan = evidence.plan?.toLowerCase();
  return plan !== undefined && (plan === c.plan_id?.toLowerCase() || plan === c.plan_name?.toLowerCase());
}
