// Settling a purchase from a verify answer that the provider's evidence (a notification, a statement line) led to:
// the answer must be about that purchase (verify-check.ts: reference, phone, amount, envelope) and final; then the
// reference is attached and the purchase settled `succeeded` or `failed` (refund recorded). A reference another
// purchase carries by then is a clash: nothing moves, and both purchases are flagged for a person. Evidence that
// contradicts a final purchase (Contradiction: reversed after success, delivered after failure) moves nothing either:
// confirmed by verify, the purchase is flagged for a person.
import type { Executor } from "../db/client.js";
import type { PurchaseState } from "../db/schema.js";
import type { Verification } from "../reseller/client.js";
import type { FinalityClass } from "../reseller/schemas.js";
import {
  CONTRADICTED_STATE,
  type ContradictionNote,
  DELIVERED_AFTER_FAILURE,
  EARLIER_ATTEMPT_DELIVERED,
  flagReferenceClash,
  isClash,
  REFERENCE_CLASH,
  REVERSED,
  settleInDoubtByProof,
} from "./ledger.js";
import type { EarlierAttempt } from "./proof-match.js";
import { MIN_VISIBLE_DIGITS, namesPhone, verifyDisagreements } from "./verify-check.js";

/** The purchase the evidence was matched to, as it stood when matched. */
export interface ProvenPurchase {
  id: number;
  state: PurchaseState;
  phone: string;
  /** Charged, or else listed. */
  amount: string;
}

export type ProofOutcome =
  | { kind: "settled"; to: "succeeded" | "failed" }
  /** Nothing changed; `why` says what the verify answer did not prove, or what stood in the way. */
  | { kind: "unchanged"; why: string; final: boolean };

/**
 * A note that puts the purchase in a person's hands: a verify answer that disagreed with it (`verify_mismatch`), or a
 * reference another purchase claims too (`reference_clash`). Evidence settles neither; the provider has told two
 * stories, and a person decides which is true.
 */
export function isForAPerson(note: string | null): boolean {
  return note !== null && (note.startsWith("verify_mismatch") || note.startsWith(REFERENCE_CLASH));
}

/** Whether a verify answer says where the money went for good. */
export function isFinalAnswer(verification: Verification & { found: true }): boolean {
  const status = verification.status;
  return status === "success" || status === "failed" || status === "reversed";
}

/**
 * What in a verify answer stops it proving `purchase` (empty when it is about it). For an in_doubt purchase the
 * reference is the evidence's, not the purchase's own: the answer's phone and amount are the only link between that
 * transaction and this purchase, so an answer that leaves either out proves nothing about which purchase it is.
 */
export function proofProblems(
  purchase: ProvenPurchase,
  reference: string,
  verification: Verification & { found: true },
): string[] {
  const problems = verifyDisagreements(
    { reference, phone: purchase.phone, amount: purchase.amount },
    verification,
  );
  if (purchase.state !== "in_doubt") return problems;
  if (verification.transaction.phone_number === undefined) problems.push("it names no phone number");
  else if (verification.phone !== undefined && !namesPhone(verification.phone))
    problems.push(`it shows fewer than ${MIN_VISIBLE_DIGITS} digits of the phone number`);
  if (verification.amount === undefined) problems.push("it names no amount");
  return problems;
}

/** Whether a status (of a verify answer, or a notification's, classified) says the transaction failed or was reversed. */
export function takesBack(finality: FinalityClass): boolean {
  return finality === "failed" || finality === "reversed";
}

/**
 * A final outcome the provider contradicts later, the mirror images: a `succeeded` purchase whose transaction it
 * reversed (or failed) since, and a `failed` one it delivered since, and charged for. Its notification or statement
 * line is a hint; once a verify answer about the purchase says so too, the purchase keeps its state and is flagged for
 * a person with the note (and trigger) `note` (flagContradicted).
 */
export interface Contradiction {
  note: ContradictionNote;
  /** The state the purchase is in, and keeps. */
  state: PurchaseState;
  /** Whether a status (a verify answer's, or a notification's classified) says so. */
  says(finality: FinalityClass): boolean;
  /** What the note says after what led to it. */
  consequence: string;
}

export const REVERSAL: Contradiction = {
  note: REVERSED,
  state: CONTRADICTED_STATE[REVERSED],
  says: takesBack,
  consequence:
    "after the purchase succeeded: the data may not have been delivered, and the charge is usually refunded to the wallet; a person decides whether to buy again",
};

export const DELIVERY_AFTER_FAILURE: Contradiction = {
  note: DELIVERED_AFTER_FAILURE,
  state: CONTRADICTED_STATE[DELIVERED_AFTER_FAILURE],
  says: (finality) => finality === "success",
  consequence:
    "after the purchase failed: the provider charged for it and says the data was delivered, so the refund recorded is not money back, and the charge counts against the daily budget; a person checks whether the customer has the data before buying it again",
};

/**
 * The provider delivered, and charged for, an attempt a person requeued the purchase after (it ended failed or
 * rejected): not a contradiction of the purchase's current attempt, which another transaction is, but money the
 * provider took for this purchase, and maybe data the customer now has twice. Once a verify answer about that attempt
 * says so too, the purchase is flagged for a person with the note (and trigger) `note` (flagEarlierAttemptDelivered).
 */
export const EARLIER_DELIVERY = {
  note: EARLIER_ATTEMPT_DELIVERED,
  says: (finality: FinalityClass) => finality === "success",
  consequence:
    "the provider charged for that attempt and says its data was delivered, so the refund recorded for it is not money back, and its charge counts against the daily budget of the day it was bought; if the attempt after it succeeded too, the customer has the data twice: a person checks with the customer before buying it again",
} as const;

/** Whether a status says an earlier attempt of a purchase was delivered after all (it ended failed or rejected). */
export function earlierDelivered(attemptState: PurchaseState, finality: FinalityClass): boolean {
  return (attemptState === "failed" || attemptState === "rejected") && EARLIER_DELIVERY.says(finality);
}

/**
 * Why a verify answer does not confirm that an earlier attempt was delivered (undefined when it does): as
 * contradictionUnconfirmed, against that attempt — its reference, the purchase's phone, what the attempt was charged
 * (an attempt requeued before topsync kept that is checked by reference and phone only).
 */
export function earlierDeliveryUnconfirmed(
  attempt: EarlierAttempt,
  verification: Verification | undefined,
): { why: string; still: boolean } | undefined {
  const amount = attempt.amount ?? (verification?.found ? verification.amount?.toFixed(2) : undefined);
  return contradictionUnconfirmed(
    { id: attempt.id, state: attempt.state, phone: attempt.phone, amount: amount ?? "0" },
    attempt.reference,
    verification,
    EARLIER_DELIVERY,
  );
}

/** What a status says of a purchase in `state` that contradicts it, if anything. */
export function contradictionOf(state: PurchaseState, finality: FinalityClass): Contradiction | undefined {
  return [REVERSAL, DELIVERY_AFTER_FAILURE].find((c) => c.state === state && c.says(finality));
}

/**
 * Why a verify answer does not confirm `contradiction` of a purchase (undefined when it does): the answer must be
 * about that purchase (its own reference, phone and amount: a success or a reversal of another transaction is not this
 * purchase's) and say so. `still`: it is about the purchase and says the purchase's outcome stands.
 */
export function contradictionUnconfirmed(
  purchase: ProvenPurchase,
  reference: string,
  verification: Verification | undefined,
  contradiction: Pick<Contradiction, "says">,
): { why: string; still: boolean } | undefined {
  if (!verification?.found) return { why: `the provider's verify does not know ${reference}`, still: false };
  const problems = proofProblems(purchase, reference, verification);
  if (problems.length > 0)
    return { why: `its verify answer disagrees with the purchase: ${problems.join("; ")}`, still: false };
  if (!contradiction.says(verification.status))
    return { why: `its verify still says ${verification.rawStatus}`, still: true };
  return undefined;
}

/**
 * Settles `purchase` (in_doubt, or the states given in `from`) with `reference` when `verification` proves it.
 * `event.reason` says what led to the reference and why the match was unique; the event's response is the answer.
 */
export async function settleByProof(
  db: Executor,
  purchase: ProvenPurchase,
  reference: string,
  verification: Verification | undefined,
  event: { actor: string; reason: string },
  from: readonly PurchaseState[] = ["in_doubt"],
): Promise<ProofOutcome> {
  if (!verification?.found)
    return { kind: "unchanged", why: `the provider's verify does not know ${reference}`, final: false };
  const problems = proofProblems(purchase, reference, verification);
  if (problems.length > 0)
    return {
      kind: "unchanged",
      why: `the verify answer of ${reference} disagrees with purchase ${purchase.id}: ${problems.join("; ")}`,
      final: true,
    };
  if (!isFinalAnswer(verification))
    return { kind: "unchanged", why: `verify says ${verification.rawStatus}, not final`, final: false };
  const to = verification.status === "success" ? "succeeded" : "failed";
  const moved = await settleInDoubtByProof(
    db,
    purchase.id,
    to,
    {
      reference,
      providerStatus: verification.rawStatus,
      message: `the provider reports ${verification.rawStatus}`,
      refund: to === "failed" ? (verification.transaction.amount?.toFixed(2) ?? null) : null,
    },
    {
      actor: event.actor,
      reason: `${event.reason}; verify says ${verification.rawStatus}`,
      response: verification.raw,
    },
    from,
  );
  if (isClash(moved)) {
    const why = `${event.reason}, but purchase ${moved.clashWith} carries reference ${reference}: one provider transaction cannot be two purchases, a person decides which purchase it is`;
    await flagReferenceClash(db, [purchase.id, moved.clashWith], why, {
      actor: event.actor,
      response: verification.raw,
    });
    return {
      kind: "unchanged",
      why: `${REFERENCE_CLASH}: reference ${reference} is already on purchase ${moved.clashWith}; both purchases are flagged for a person`,
      final: true,
    };
  }
  if (!moved)
    return {
      kind: "unchanged",
      why: `purchase ${purchase.id} was no longer ${from.join(" or ")}`,
      final: true,
    };
  return { kind: "settled", to };
}
