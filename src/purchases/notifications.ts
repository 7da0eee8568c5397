// Provider notifications (webhook deliveries, seed §6 `webhook_response`): stored once per body, then used as
// a hint only. The verify answer is the proof (DESIGN §1.7): a notification for a purchase awaiting its final
// status makes it verified now; one for a reference on no purchase may settle the one in_doubt purchase it can
// be, when the verify answer of that reference is about that purchase. Anything else changes nothing and the
// notification stays `unmatched` with the reason, for a person.
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Clock } from "../clock.js";
import type { Config } from "../config/index.js";
import { type Executor, rows } from "../db/client.js";
import type { NotificationOutcome, PurchaseState } from "../db/schema.js";
import type { Logger } from "../log/logger.js";
import { isMoneyText, parseMoney } from "../money.js";
import type { ResellerClient, Verification } from "../reseller/client.js";
import { Semaphore } from "../semaphore.js";
import { capText } from "../text/cap.js";
import { otherPurchaseWithReference, settleInDoubtByProof } from "./ledger.js";
import { Verifier } from "./verifier.js";
import { sameVisibleDigits, verifyDisagreements } from "./verify-check.js";

/** The actor of a ledger event a notification and its verify answer caused. */
export const NOTIFICATION_ACTOR = "webhook+verify";
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
  const date = dateText ? new Date(dateText) : null;
  return {
    reference,
    status: textOf(envelope.status),
    phone: textOf(fields.phone_number),
    amount: amountText && isMoneyText(amountText) ? parseMoney(amountText).toFixed(2) : null,
    plan: textOf(fields.plan),
    notifiedAt: date && !Number.isNaN(date.getTime()) ? date : null,
  };
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
}

export interface NotificationResult {
  outcome: Exclude<NotificationOutcome, "received" | "rejected">;
  reason: string;
  purchaseId: number | null;
}

/** What processing notifications needs, its verifier built here (actor `webhook+verify`, two verify reads at once). */
export function notificationDeps(parts: {
  db: Executor;
  reseller: ResellerClient;
  config: Pick<Config, "verification" | "webhooks">;
  logger: Logger;
  clock: Clock;
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
    onSettled: () => {},
  });
  return {
    db: parts.db,
    reseller: parts.reseller,
    verifier,
    logger: parts.logger,
    matchWindow: parts.config.webhooks.match_window,
  };
}

interface StoredNotification {
  id: number | string;
  reference: string | null;
  status: string | null;
  phone: string | null;
  amount: string | null;
  plan: string | null;
  notified_at: Date | string | null;
}

/**
 * Processes one stored notification once (the first caller claims it); undefined when another caller
 * already did. Records the outcome on the notification.
 */
export async function processNotification(
  deps: NotificationDeps,
  id: number,
): Promise<NotificationResult | undefined> {
  const [claimed] = await rows<StoredNotification>(
    deps.db,
    sql`update provider_notifications set processed_at = now() where id = ${id} and processed_at is null
        returning id, reference, status, phone, amount::text as amount, plan, notified_at`,
  );
  if (!claimed) return undefined;
  let result: NotificationResult;
  try {
    result = await decide(deps, claimed);
  } catch (error) {
    result = {
      outcome: "unmatched",
      reason: `not processed: ${(error as Error).message}`,
      purchaseId: null,
    };
  }
  await rows(
    deps.db,
    sql`update provider_notifications set outcome = ${result.outcome}, reason = ${capText(result.reason)},
        purchase_id = ${result.purchaseId} where id = ${id}`,
  );
  deps.logger.info(
    { notification: id, purchase: result.purchaseId ?? undefined },
    `notification ${id}: ${result.outcome}: ${result.reason}`,
  );
  return result;
}

/**
 * Looks again at recent notifications that found no purchase, once a purchase has become in_doubt since they
 * were processed (the notification came while its purchase was still `submitting`, and the purchase's answer
 * was then lost). Returns what became of each.
 */
export async function retryUnmatched(
  deps: NotificationDeps,
  now = new Date(),
): Promise<NotificationResult[]> {
  const since = new Date(now.getTime() - 2 * deps.matchWindow).toISOString();
  const due = await rows<{ id: number | string }>(
    deps.db,
    sql`update provider_notifications n set processed_at = null
        where n.outcome = 'unmatched' and n.purchase_id is null and n.received_at >= ${since}
          and n.reason like '%no in_doubt purchase could be it'
          and exists (select 1 from purchases p where p.state = 'in_doubt' and p.updated_at > n.processed_at)
        returning n.id`,
  );
  const results: NotificationResult[] = [];
  for (const { id } of due) {
    const result = await processNotification(deps, Number(id));
    if (result) results.push(result);
  }
  return results;
}

async function decide(deps: NotificationDeps, n: StoredNotification): Promise<NotificationResult> {
  const reference = n.reference ?? "";
  const [own] = await rows<{
    id: number | string;
    state: PurchaseState;
    phone: string;
    amount: string;
    submitted_at: Date | string | null;
  }>(
    deps.db,
    sql`select id, state, phone, coalesce(charged_amount, amount)::text as amount, submitted_at from purchases
        where reference = ${reference} order by id limit 1`,
  );
  if (own) return forOwnPurchase(deps, own, reference);
  return forInDoubt(deps, n, reference);
}

async function forOwnPurchase(
  deps: NotificationDeps,
  own: {
    id: number | string;
    state: PurchaseState;
    phone: string;
    amount: string;
    submitted_at: Date | string | null;
  },
  reference: string,
): Promise<NotificationResult> {
  const purchaseId = Number(own.id);
  if (own.state !== "submitted" && own.state !== "unverified")
    return { outcome: "matched", reason: `purchase ${purchaseId} is already ${own.state}`, purchaseId };
  await deps.verifier.checkNow({
    id: purchaseId,
    reference,
    submittedAt: own.submitted_at ? new Date(own.submitted_at).getTime() : Date.now(),
    attempt: 0,
    unverified: own.state === "unverified",
    expect: { phone: own.phone, amount: own.amount },
  });
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

interface Candidate {
  id: number | string;
  phone: string;
  amount: string | null;
  plan_id: string | null;
  plan_name: string | null;
  posted_at: Date | string;
}

async function forInDoubt(
  deps: NotificationDeps,
  n: StoredNotification,
  reference: string,
): Promise<NotificationResult> {
  const none = (reason: string, purchaseId: number | null = null): NotificationResult => ({
    outcome: "unmatched",
    reason,
    purchaseId,
  });
  if (!n.notified_at || !n.phone)
    return none(
      `no purchase carries reference ${reference}, and the notification has no date or phone to match`,
    );
  const at = new Date(n.notified_at);
  const from = new Date(at.getTime() - deps.matchWindow).toISOString();
  const to = new Date(at.getTime() + deps.matchWindow).toISOString();
  // The POST's time: when the purchase last went to submitting.
  const found = await rows<Candidate>(
    deps.db,
    sql`select p.id, p.phone, coalesce(p.charged_amount, p.amount)::text as amount, p.plan_id, p.plan_name, e.posted_at
        from purchases p
        cross join lateral (select max(at) as posted_at from purchase_events
          where purchase_id = p.id and to_state = 'submitting') e
        where p.state = 'in_doubt' and e.posted_at between ${from} and ${to}
        order by p.id limit 1000`,
  );
  const candidates = found.filter((c) => couldBe(n, c));
  if (candidates.length === 0)
    return none(`no purchase carries reference ${reference}, and no in_doubt purchase could be it`);
  if (candidates.length > 1)
    return none(
      `${candidates.length} in_doubt purchases could be it (${candidates.map((c) => c.id).join(", ")}): a person decides`,
    );
  const candidate = candidates[0]!;
  const purchaseId = Number(candidate.id);
  let verification: Verification;
  try {
    verification = await deps.reseller.verifyTransaction(reference);
  } catch (error) {
    return none(
      `purchase ${purchaseId} could be it, but verify ${reference} failed: ${(error as Error).message}`,
      purchaseId,
    );
  }
  if (!verification.found)
    return none(`the provider's verify does not know reference ${reference}`, purchaseId);
  const problems = verifyDisagreements(
    { reference, phone: candidate.phone, amount: candidate.amount ?? "0" },
    verification,
  );
  if (problems.length > 0)
    return none(
      `the verify answer of ${reference} disagrees with purchase ${purchaseId}: ${problems.join("; ")}`,
      purchaseId,
    );
  const other = await otherPurchaseWithReference(deps.db, reference, purchaseId);
  if (other) return none(`reference ${reference} is already on purchase ${other.id}`, purchaseId);
  const status = verification.status;
  if (status !== "success" && status !== "failed" && status !== "reversed")
    return {
      outcome: "matched",
      reason: `purchase ${purchaseId} could be it; verify says ${verification.rawStatus}, not final: nothing changed`,
      purchaseId,
    };
  const target = status === "success" ? "succeeded" : "failed";
  const refund = target === "failed" ? (verification.transaction.amount?.toFixed(2) ?? null) : null;
  const moved = await settleInDoubtByProof(
    deps.db,
    purchaseId,
    target,
    {
      reference,
      providerStatus: verification.rawStatus,
      message: `the provider reports ${verification.rawStatus}`,
      refund,
    },
    {
      actor: NOTIFICATION_ACTOR,
      reason: `settled by proof: provider notification ${n.id} named reference ${reference}, and its verify answer (${verification.rawStatus}) names this purchase's phone and amount`,
      response: verification.raw,
    },
  );
  if (!moved) return none(`purchase ${purchaseId} was no longer in_doubt`, purchaseId);
  return {
    outcome: "settled",
    reason: `purchase ${purchaseId} settled ${target} by verify of ${reference}`,
    purchaseId,
  };
}

/** Same phone, and the same amount or plan. */
function couldBe(n: StoredNotification, c: Candidate): boolean {
  if (!n.phone || !sameVisibleDigits(n.phone, c.phone)) return false;
  if (n.amount !== null && c.amount !== null && parseMoney(n.amount).eq(parseMoney(c.amount))) return true;
  const plan = n.plan?.toLowerCase();
  return plan !== undefined && (plan === c.plan_id?.toLowerCase() || plan === c.plan_name?.toLowerCase());
}
