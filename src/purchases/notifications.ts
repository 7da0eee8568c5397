// Provider notifications (webhook deliveries, the `webhook_response` shape): stored once per body, then used as a
// hint only. The verify answer is the proof: a notification for a purchase awaiting its final status makes it
// verified now; one for a reference on no purchase may settle the one in_doubt purchase it can be, and nothing else
// could (proof-match.ts), when the verify answer of that reference is about that purchase and final. The provider's
// verify may lag its own notification, so both read with the backoff of any poll until final or
// `verification.timeout`. One contradicting a final purchase — a `succeeded` purchase's transaction failed or reversed
// since, a `failed` one's delivered since — flags that purchase for a person once its verify says so too
// (forContradiction); so does one saying the transaction of an attempt before a person requeued the purchase was
// delivered after all (forEarlierDelivery). Anything else changes nothing and the notification stays `unmatched` with
// the reason.
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Clock } from "../clock.js";
import type { Config } from "../config/index.js";
import { type Executor, rows } from "../db/client.js";
import type { NotificationOutcome, PurchaseState } from "../db/schema.js";
import type { Logger } from "../log/logger.js";
import { fitsLedger, isMoneyText, parseMoney } from "../money.js";
import type { ResellerClient } from "../reseller/client.js";
import { classifyStatus } from "../reseller/schemas.js";
import { Semaphore } from "../semaphore.js";
import { capText } from "../text/cap.js";
import {
  carriesFlag,
  EARLIER_ATTEMPT_DELIVERED,
  flagContradicted,
  flagEarlierAttemptDelivered,
} from "./ledger.js";
import {
  type Candidate,
  type Evidence,
  earlierAttempt,
  matchProof,
  NO_IN_DOUBT_CANDIDATE,
  type OwnPurchase,
  stillOnly,
} from "./proof-match.js";
import {
  type Contradiction,
  contradictionOf,
  contradictionUnconfirmed,
  EARLIER_DELIVERY,
  earlierDelivered,
  earlierDeliveryUnconfirmed,
  isFinalAnswer,
  isForAPerson,
  proofProblems,
  settleByProof,
} from "./proof-settle.js";
import { readStatementDate } from "./sources/statement-cells.js";
import { Verifier, type VerifyReadTally } from "./verifier.js";

/** The actor of a ledger event a notification and its verify answer caused. */
export const NOTIFICATION_ACTOR = "webhook+verify";
/** How long after it came a notification whose processing failed is processed again (then: unmatched, for a person). */
const RETRY_FAILED_FOR_MS = 3_600_000;
/** Characters of a delivery's body kept in the table. */
export const MAX_STORED_BODY_CHARS = 16 * 1024;

export interface ParsedNotification {
  reference: string;
  status: string | null;
  phone: string | null;
  /** Exact decimal text, or null when absent or not an amount. */
  amount: string | null;
  plan: string | null;
  notifiedAt: Date | null;
}

/** The fields topsync reads from a delivery, or a message saying why it is not a notification. */
export function parseNotification(body: unknown): ParsedNotification | { problem: string } {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return { problem: "the body is not a JSON object" };
  const envelope = body as Record<string, unknown>;
  const data = envelope.data;
  if (typeof data !== "object" || data === null || Array.isArray(data))
    return { problem: "the body has no `data` object" };
  const fields = data as Record<string, unknown>;
  const reference = textOf(fields.reference);
  if (!reference || reference.length > 200)
    return { problem: "`data.reference` is missing or not a reference" };
  const amountText = textOf(fields.amount);
  const dateText = textOf(fields.date);
  return {
    reference,
    status: textOf(envelope.status),
    phone: textOf(fields.phone_number),
    amount: amountText ? notificationAmount(amountText) : null,
    plan: textOf(fields.plan),
    notifiedAt: dateText ? notificationDate(dateText) : null,
  };
}

/**
 * A notification's `amount`, exact: at most two places and within what the ledger's columns hold; anything else is
 * unreadable (null), never rounded, nor let fail the row's insert (the delivery would be refused for ever).
 */
function notificationAmount(text: string): string | null {
  if (!isMoneyText(text)) return null;
  const amount = parseMoney(text);
  return fitsLedger(amount) && amount.round(2).eq(amount) ? amount.toFixed(2) : null;
}

/**
 * A notification's `date`: ISO 8601, UTC when it names no zone (the seed: "ISO 8601 UTC timestamp"), never read in
 * the machine's zone (`new Date` would, an hour off on a machine in Lagos, and beyond the match window) nor guessed
 * from another format (`new Date("11/05/2026")` is 5 November). Anything else is no date: it matches no in_doubt
 * purchase.
 */
function notificationDate(text: string): Date | null {
  const read = readStatementDate(text, "ISO", "UTC");
  return read.ok ? read.value : null;
}

function textOf(value: unknown): string | null {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value !== "string") return null;
  const trimmed = value.trim();
  return trimmed === "" ? null : capText(trimmed, 500);
}

export function bodyHash(raw: Buffer): string {
  return createHash("sha256").update(raw).digest("hex");
}

/** Stores an accepted delivery once per body hash; `duplicate` when that body was stored before. */
export async function storeNotification(
  db: Executor,
  delivery: { sha256: string; source: string | null; body: string; parsed: ParsedNotification },
): Promise<{ id: number; duplicate: boolean }> {
  const p = delivery.parsed;
  const [inserted] = await rows<{ id: number | string }>(
    db,
    sql`insert into provider_notifications (body_sha256, source, reference, status, phone, amount, plan, notified_at, body)
        values (${delivery.sha256}, ${delivery.source}, ${p.reference}, ${p.status}, ${p.phone}, ${p.amount},
          ${p.plan}, ${p.notifiedAt?.toISOString() ?? null}, ${capText(delivery.body, MAX_STORED_BODY_CHARS)})
        on conflict (body_sha256) do nothing returning id`,
  );
  if (inserted) return { id: Number(inserted.id), duplicate: false };
  const [existing] = await rows<{ id: number | string }>(
    db,
    sql`select id from provider_notifications where body_sha256 = ${delivery.sha256}`,
  );
  return { id: Number(existing?.id), duplicate: true };
}

export interface NotificationDeps {
  db: Executor;
  reseller: ResellerClient;
  /** Settles purchases awaiting their final status, as its polls would. */
  verifier: Verifier;
  logger: Logger;
  /** How far a notification's date may be from an in_doubt purchase's POST (ms). */
  matchWindow: number;
  /** Its `timeout`: how long after a notification came its reference is read until the answer is final. */
  verification: Config["verification"];
  clock: Clock;
}

export interface NotificationResult {
  outcome: Exclude<NotificationOutcome, "received" | "rejected">;
  reason: string;
  purchaseId: number | null;
  /**
   * The notification had this outcome before this look (a retry of an unmatched one that found nothing new): it was
   * counted when it first came to it, and is not counted again.
   */
  repeated?: boolean;
}

/** What processing notifications needs, its verifier built here (actor `webhook+verify`, two verify reads at once). */
export function notificationDeps(parts: {
  db: Executor;
  reseller: ResellerClient;
  config: Pick<Config, "verification" | "webhooks">;
  logger: Logger;
  clock: Clock;
  /** Counts verify reads per purchase with the process's other verifiers. */
  tally?: VerifyReadTally;
}): NotificationDeps {
  const verifier = new Verifier({
    db: parts.db,
    ledger: parts.db,
    reseller: parts.reseller,
    verification: parts.config.verification,
    logger: parts.logger,
    clock: parts.clock,
    actor: NOTIFICATION_ACTOR,
    slots: new Semaphore(2),
    tally: parts.tally,
    onSettled: () => {},
  });
  return {
    db: parts.db,
    reseller: parts.reseller,
    verifier,
    logger: parts.logger,
    matchWindow: parts.config.webhooks.match_window,
    verification: parts.config.verification,
    clock: parts.clock,
  };
}

/** A stored notification as a processor claimed it. */
export interface ClaimedNotification {
  id: number | string;
  reference: string | null;
  status: string | null;
  phone: string | null;
  amount: string | null;
  plan: string | null;
  notified_at: Date | string | null;
  received_at: Date | string;
  /** What it was before this claim: `received`, or `unmatched` (a retry), with when that was recorded. */
  before: "received" | "unmatched";
  before_processed_at: Date | string | null;
}

const CLAIMED_COLUMNS = sql`n.id, n.reference, n.status, n.phone, n.amount::text as amount, n.plan, n.notified_at,
  n.received_at`;

/**
 * Processes one stored notification once (the first caller claims it); undefined when another caller
 * already did. Records the outcome on the notification.
 */
export async function processNotification(
  deps: NotificationDeps,
  id: number,
): Promise<NotificationResult | undefined> {
  const [claimed] = await rows<ClaimedNotification>(
    deps.db,
    sql`update provider_notifications n set processed_at = now() where n.id = ${id} and n.processed_at is null
        returning ${CLAIMED_COLUMNS}, 'received' as before, null::timestamptz as before_processed_at`,
  );
  return claimed ? processClaimed(deps, claimed) : undefined;
}

/**
 * Decides a notification this caller claimed and records the outcome, unless someone recorded one since (a claim
 * that lapsed and was taken again): undefined then.
 */
export async function processClaimed(
  deps: NotificationDeps,
  claimed: ClaimedNotification,
): Promise<NotificationResult | undefined> {
  const id = Number(claimed.id);
  let result: NotificationResult;
  try {
    result = await decide(deps, claimed);
  } catch (error) {
    const message = (error as Error).message;
    // A failure of the moment (the database lost mid-way) is not an answer about the notification. One being
    // looked at again goes back to unmatched as it was, for the next retry; one never decided is left `received`,
    // unclaimed, and the backlog's next pass processes it again — for an hour, not for ever.
    if (claimed.before === "unmatched") {
      await returnUnmatched(deps.db, [claimed]);
      deps.logger.warn({ notification: id }, `notification ${id}: not looked at again yet: ${message}`);
      return undefined;
    }
    if (deps.clock.now() < new Date(claimed.received_at).getTime() + RETRY_FAILED_FOR_MS) {
      await rows(
        deps.db,
        sql`update provider_notifications set processed_at = null, outcome = 'received',
            reason = ${capText(`not processed yet, tried again by the next pass: ${message}`)}
            where id = ${id} and outcome = 'received'`,
      );
      deps.logger.warn({ notification: id }, `notification ${id}: not processed yet: ${message}`);
      return undefined;
    }
    result = { outcome: "unmatched", reason: `not processed: ${message}`, purchaseId: null };
  }
  const recorded = await recordOutcome(deps.db, id, result);
  if (!recorded) {
    deps.logger.info(
      { notification: id },
      `notification ${id}: another processor recorded its outcome first`,
    );
    return undefined;
  }
  deps.logger.info(
    { notification: id, purchase: recorded.purchaseId ?? undefined },
    `notification ${id}: ${recorded.outcome}: ${recorded.reason}`,
  );
  return recorded.outcome === claimed.before ? { ...recorded, repeated: true } : recorded;
}

/**
 * Records what became of a notification this caller claimed (still `received`: nobody recorded since). `unmatched`
 * is checked against the ledger in the same statement: a purchase that carries the notification's reference by now
 * (its own answer came, or it was settled by a person, a statement or another processor while this one read verify)
 * makes the notification that purchase's — `matched` — never `unmatched` after a settlement.
 */
async function recordOutcome(
  db: Executor,
  id: number,
  result: NotificationResult,
): Promise<NotificationResult | undefined> {
  const [row] = await rows<{
    outcome: NotificationResult["outcome"];
    reason: string;
    purchase_id: string | number | null;
  }>(
    db,
    sql`with n as (
          select id, reference from provider_notifications where id = ${id} and outcome = 'received' for update
        ), owner as (
          select n.id, coalesce(
            (select p.id from purchases p where p.reference = n.reference limit 1),
            (select e.purchase_id from earlier_references e where e.reference = n.reference),
            (select r.purchase_id from pruned_purchases r where r.reference = n.reference limit 1)) as purchase_id
          from n where ${result.outcome} = 'unmatched' and n.reference is not null
        ), r as (
          select n.id,
            case when o.purchase_id is null then ${result.outcome} else 'matched' end as outcome,
            case when o.purchase_id is null then ${capText(result.reason)}
              else 'purchase ' || o.purchase_id || ' carries reference ' || n.reference
                || ' now: it took it while this notification was being processed'
            end as reason,
            coalesce(o.purchase_id, ${result.purchaseId}::bigint) as purchase_id
          from n left join owner o on o.id = n.id
        )
        update provider_notifications p set outcome = r.outcome, reason = r.reason, purchase_id = r.purchase_id
        from r where p.id = r.id
        returning p.outcome, p.reason, p.purchase_id`,
  );
  if (!row) return undefined;
  return {
    outcome: row.outcome,
    reason: row.reason,
    purchaseId: row.purchase_id === null ? null : Number(row.purchase_id),
  };
}

/**
 * Notifications claimed to be looked at again (claimUnmatched) and not decided: back to unmatched as they were, with
 * the time they were recorded, so the next retry takes them again.
 */
export async function returnUnmatched(db: Executor, claimed: readonly ClaimedNotification[]): Promise<void> {
  const back = claimed.filter((c) => c.before === "unmatched");
  if (back.length === 0) return;
  const payload = JSON.stringify(
    back.map((c) => ({
      id: Number(c.id),
      at: c.before_processed_at === null ? null : new Date(c.before_processed_at).toISOString(),
    })),
  );
  await rows(
    db,
    sql`update provider_notifications n set outcome = 'unmatched', processed_at = b.at
        from json_to_recordset(${payload}::json) as b(id bigint, at timestamptz)
        where n.id = b.id and n.outcome = 'received'`,
  );
}

/**
 * Claims recent notifications that found no purchase, once a purchase has become in_doubt since they were processed
 * (the notification came while its purchase was still `submitting`, and the purchase's answer was then lost), to be
 * looked at again: each goes back to `received` under this caller's claim, so that no other pass (another replica,
 * or this one's next) takes it while it is being looked at, and no other outcome is recorded over the one it comes to.
 */
export async function claimUnmatched(
  deps: Pick<NotificationDeps, "db" | "matchWindow">,
  now = new Date(),
): Promise<ClaimedNotification[]> {
  const since = new Date(now.getTime() - 2 * deps.matchWindow).toISOString();
  return rows<ClaimedNotification>(
    deps.db,
    sql`with due as (
          select n.id, n.processed_at from provider_notifications n
          where n.outcome = 'unmatched' and n.purchase_id is null and n.received_at >= ${since}
            and n.reason like ${`%${NO_IN_DOUBT_CANDIDATE}`}
            and exists (select 1 from purchases p where p.state = 'in_doubt' and p.updated_at > n.processed_at)
          order by n.id for update of n skip locked
        )
        update provider_notifications n set outcome = 'received', processed_at = now()
        from due where n.id = due.id
        returning ${CLAIMED_COLUMNS}, 'unmatched' as before, due.processed_at as before_processed_at`,
  );
}

/**
 * Looks again at recent notifications that found no purchase, once a purchase has become in_doubt since they
 * were processed (claimUnmatched). Returns what became of each.
 */
export async function retryUnmatched(
  deps: NotificationDeps,
  now = new Date(),
): Promise<NotificationResult[]> {
  const results: NotificationResult[] = [];
  for (const claimed of await claimUnmatched(deps, now)) {
    const result = await processClaimed(deps, claimed);
    if (result) results.push(result);
  }
  return results;
}

async function decide(deps: NotificationDeps, n: ClaimedNotification): Promise<NotificationResult> {
  const reference = n.reference ?? "";
  const evidence: Evidence = {
    reference,
    phone: n.phone,
    amount: n.amount,
    plan: n.plan,
    at: n.notified_at ? new Date(n.notified_at) : null,
    what: `provider notification ${n.id}`,
  };
  // The provider's verify is eventually consistent, also about a transaction it has already notified: each read
  // below goes on with the backoff of any poll until the answer is final or verification.timeout has passed since
  // the notification came.
  const deadline = new Date(n.received_at).getTime() + deps.verification.timeout;
  const match = await matchProof(deps.db, evidence, deps.matchWindow);
  if (match.kind === "owned") {
    const own = match.purchase;
    const finality = n.status === null ? undefined : classifyStatus(n.status);
    // An earlier attempt's transaction says nothing of the purchase's current one (forOwnPurchase says so), but its
    // delivery is a charge for the purchase all the same.
    if (own.earlier && finality !== undefined && earlierDelivered(own.state, finality))
      return forEarlierDelivery(deps, own, reference, n.status!, deadline);
    const contradiction =
      own.earlier || finality === undefined ? undefined : contradictionOf(own.state, finality);
    if (contradiction) return forContradiction(deps, own, reference, n.status!, deadline, contradiction);
    return forOwnPurchase(deps, own, reference, deadline);
  }
  if (match.kind === "unmatched")
    return unmatched(match.reason, match.candidates.length === 1 ? match.candidates[0]! : null);
  return forInDoubt(deps, evidence, match.purchase, deadline);
}

function unmatched(reason: string, purchaseId: number | null = null): NotificationResult {
  return { outcome: "unmatched", reason, purchaseId };
}

async function forOwnPurchase(
  deps: NotificationDeps,
  own: OwnPurchase,
  reference: string,
  deadline: number,
): Promise<NotificationResult> {
  const purchaseId = own.id;
  if (own.earlier)
    return {
      outcome: "matched",
      reason: `reference ${reference} is of purchase ${purchaseId}'s attempt before a person requeued it (that attempt ended ${own.state}): it settles nothing of the purchase's new attempt, nor of another purchase`,
      purchaseId,
    };
  if (own.state !== "submitted" && own.state !== "unverified")
    return { outcome: "matched", reason: `purchase ${purchaseId} is already ${own.state}`, purchaseId };
  if (isForAPerson(own.note))
    return {
      outcome: "matched",
      reason: `purchase ${purchaseId} is ${own.state} with a note for a person (${own.note!.slice(0, 300)}): a notification does not outweigh it; a person settles it`,
      purchaseId,
    };
  await deps.verifier.verifyUntil(
    {
      id: purchaseId,
      reference,
      submittedAt: own.submitted_at ? own.submitted_at.getTime() : deps.clock.now(),
      attempt: 0,
      unverified: own.state === "unverified",
      expect: { phone: own.phone, amount: own.amount },
    },
    Math.max(deadline, deps.clock.now()),
  );
  const [after] = await rows<{ state: PurchaseState; note: string | null }>(
    deps.db,
    sql`select state, note from purchases where id = ${purchaseId}`,
  );
  const state = after?.state ?? own.state;
  if (state === "succeeded" || state === "failed")
    return { outcome: "settled", reason: `purchase ${purchaseId} verified now: ${state}`, purchaseId };
  return {
    outcome: "matched",
    reason: `purchase ${purchaseId} verified now and is still ${state}${after?.note ? ` (${after.note})` : ""}`,
    purchaseId,
  };
}

/**
 * A notification that contradicts a final purchase: a `succeeded` purchase's transaction failed or was reversed after
 * all (providers refund delivered purchases on a timer, and say so by notification first, REFERENCE.md), or a
 * `failed` one's was delivered after all, and charged. The verify answer is the proof, and it lags the notification:
 * it is read until it says so too, disagrees with the purchase, or `verification.timeout` has passed. Confirmed, the
 * purchase is flagged for a person (flagContradicted: still in its state, with the note, and the episode told, named
 * `reversed` or `delivered_after_failure`); not confirmed, nothing changes and the reason says why.
 */
async function forContradiction(
  deps: NotificationDeps,
  own: OwnPurchase,
  reference: string,
  status: string,
  deadline: number,
  contradiction: Contradiction,
): Promise<NotificationResult> {
  const purchaseId = own.id;
  const { note } = contradiction;
  const said = `the notification says ${reference} ${status} after purchase ${purchaseId} ${own.state}`;
  if (carriesFlag(own.note, note))
    return { outcome: "matched", reason: `${said}; it is flagged ${note} already`, purchaseId };
  const purchase = { id: purchaseId, state: own.state, phone: own.phone, amount: own.amount };
  const answer = await deps.verifier.readUntil(
    reference,
    Math.max(deadline, deps.clock.now()),
    (v) => contradiction.says(v.status) || proofProblems(purchase, reference, v).length > 0,
  );
  const unconfirmed = contradictionUnconfirmed(purchase, reference, answer, contradiction);
  if (unconfirmed !== undefined || !answer?.found)
    return {
      outcome: "matched",
      reason: `${said}, but ${unconfirmed?.why}${unconfirmed?.still ? " after verification.timeout" : ""}: nothing changed`,
      purchaseId,
    };
  const flagged = await flagContradicted(
    deps.db,
    note,
    purchaseId,
    reference,
    `the provider's verify of ${reference} now says ${answer.rawStatus} (its notification said ${status}), ${contradiction.consequence}`,
    { actor: NOTIFICATION_ACTOR, response: answer.raw },
  );
  return {
    outcome: "matched",
    reason: flagged
      ? `${said}, and its verify now says ${answer.rawStatus}: flagged ${note}, for a person`
      : `${said}; it was flagged, or changed, meanwhile`,
    purchaseId,
  };
}

/**
 * A notification that the transaction of a purchase's attempt before a person requeued it (which ended failed or
 * rejected) was delivered after all: the provider charged for it, and the customer may have the data twice. As for a
 * contradiction, the verify answer of that reference is the proof, read past its lag until it says success too,
 * disagrees with the attempt, or `verification.timeout` has passed. Confirmed, the purchase is flagged for a person
 * (flagEarlierAttemptDelivered: its state is its current attempt's and stays; the note, the episode told once for
 * that reference, the attempt's charge counted against its budget day once); not confirmed, nothing changes.
 */
async function forEarlierDelivery(
  deps: NotificationDeps,
  own: OwnPurchase,
  reference: string,
  status: string,
  deadline: number,
): Promise<NotificationResult> {
  const purchaseId = own.id;
  const said = `the notification says ${reference} ${status}, the transaction of purchase ${purchaseId}'s attempt before a person requeued it (that attempt ended ${own.state})`;
  const attempt = await earlierAttempt(deps.db, reference);
  if (attempt?.id !== purchaseId) return forOwnPurchase(deps, own, reference, deadline);
  if (attempt.delivered)
    return {
      outcome: "matched",
      reason: `${said}; that attempt's delivery is flagged already`,
      purchaseId,
    };
  const answer = await deps.verifier.readUntil(
    reference,
    Math.max(deadline, deps.clock.now()),
    (v) => earlierDeliveryUnconfirmed(attempt, v)?.still !== true,
  );
  const unconfirmed = earlierDeliveryUnconfirmed(attempt, answer);
  if (unconfirmed !== undefined || !answer?.found)
    return {
      outcome: "matched",
      reason: `${said}, but ${unconfirmed?.why}${unconfirmed?.still ? " after verification.timeout" : ""}: nothing changed`,
      purchaseId,
    };
  const flagged = await flagEarlierAttemptDelivered(
    deps.db,
    purchaseId,
    reference,
    `the provider's verify of ${reference} (this purchase's attempt before a person requeued it, which ended ${attempt.state}) now says ${answer.rawStatus} (its notification said ${status}): ${EARLIER_DELIVERY.consequence}`,
    { actor: NOTIFICATION_ACTOR, response: answer.raw },
  );
  return {
    outcome: "matched",
    reason: flagged
      ? `${said}, and its verify now says ${answer.rawStatus}: flagged ${EARLIER_ATTEMPT_DELIVERED}, for a person`
      : `${said}; it was flagged meanwhile`,
    purchaseId,
  };
}

/**
 * The one in_doubt purchase the notification can be: its reference is read until the verify answer is final (or
 * disagrees, or the time is up); the match is then checked again, as the ledger may have moved meanwhile, and
 * the purchase settled by that answer.
 */
async function forInDoubt(
  deps: NotificationDeps,
  evidence: Evidence,
  candidate: Candidate,
  deadline: number,
): Promise<NotificationResult> {
  const reference = evidence.reference;
  const purchase = {
    id: candidate.id,
    state: candidate.state,
    phone: candidate.phone,
    amount: candidate.amount ?? "0",
  };
  const answer = await deps.verifier.readUntil(
    reference,
    Math.max(deadline, deps.clock.now()),
    (v) => isFinalAnswer(v) || proofProblems(purchase, reference, v).length > 0,
  );
  if (answer?.found && !isFinalAnswer(answer) && proofProblems(purchase, reference, answer).length === 0)
    return unmatched(
      `purchase ${purchase.id} could be it; verify of ${reference} still says ${answer.rawStatus}, not final, after verification.timeout: nothing changed`,
      purchase.id,
    );
  const still = await stillOnly(deps.db, evidence, deps.matchWindow, purchase.id);
  if (!still.only) return unmatched(still.reason, purchase.id);
  const outcome = await settleByProof(deps.db, purchase, reference, answer, {
    actor: NOTIFICATION_ACTOR,
    reason: `settled by proof: ${evidence.what} named reference ${reference}, its verify answer names this purchase's phone and amount, and ${still.why}`,
  });
  if (outcome.kind === "settled")
    return {
      outcome: "settled",
      reason: `purchase ${purchase.id} settled ${outcome.to} by verify of ${reference}`,
      purchaseId: purchase.id,
    };
  return unmatched(`purchase ${purchase.id} could be it, but ${outcome.why}`, purchase.id);
}
