// A verify answer is a claim about one purchase (a provider's answer is evidence, not fact): it settles the purchase only when it is about
// that purchase — our reference, the phone's visible digits, the amount charged — and its envelope says success.
// The answer comes parsed at the edge (reseller/client.ts); this compares values. Pure.
import { parseMoney } from "../money.js";
import type { Verification } from "../reseller/client.js";
import { phoneAgrees, visiblePhone } from "../reseller/schemas.js";

export interface Expected {
  reference: string;
  /** The purchase's phone, national form (0803…). */
  phone: string;
  /** What the provider charged by the purchase answer (or the listed price), exact decimal text. */
  amount: string;
}

/** What in a found verify answer disagrees with the purchase; empty when it is about this purchase. */
export function verifyDisagreements(
  expected: Expected,
  verification: Verification & { found: true },
): string[] {
  const problems: string[] = [];
  if (!verification.envelopeOk) problems.push("the answer's status is false");
  if (verification.reference !== expected.reference)
    problems.push(`it names reference ${verification.reference}, not ${expected.reference}`);
  const shown = verification.transaction.phone_number;
  if (
    shown !== undefined &&
    (verification.phone === undefined || !phoneAgrees(verification.phone, expected.phone))
  )
    problems.push("it names another phone number");
  if (verification.amount !== undefined && !verification.amount.eq(parseMoney(expected.amount)))
    problems.push(`it names amount ${verification.amount.toFixed(2)}, not the ${expected.amount} charged`);
  return problems;
}

/** Whether a phone as the provider shows it (masked or not, in the usual forms) can be ours (national form). */
export function sameVisibleDigits(shown: string, ours: string): boolean {
  const visible = visiblePhone(shown);
  return visible !== undefined && phoneAgrees(visible, ours);
}

/**
 * Digits a shown phone must reveal to name a phone at all, as both usual masks do (`0803****567`, `0806232****`):
 * `0**********` agrees with every number, so evidence showing so little cannot say which purchase it is.
 */
export const MIN_VISIBLE_DIGITS = 7;

/** Whether a phone as shown (national form, `*` for hidden digits) reveals enough digits to name a phone. */
export function namesPhone(visible: string): boolean {
  return visible.replace(/\*/g, "").length >= MIN_VISIBLE_DIGITS;
}
