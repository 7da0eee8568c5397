// A verify answer is a claim about one purchase (DESIGN §1.7): it settles the purchase only when it is about
// that purchase — our reference, the phone's visible digits, the amount charged — and its envelope says success.
// Pure.

import { parseMoney } from "../money.js";
import type { Verification } from "../reseller/client.js";

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
  const tx = verification.transaction;
  if (envelopeSaysFailure(verification.raw)) problems.push("the answer's status is false");
  if (tx.reference !== expected.reference)
    problems.push(`it names reference ${tx.reference}, not ${expected.reference}`);
  if (tx.phone_number !== undefined && !sameVisibleDigits(tx.phone_number, expected.phone))
    problems.push("it names another phone number");
  if (tx.amount !== undefined && !tx.amount.eq(parseMoney(expected.amount)))
    problems.push(`it names amount ${tx.amount.toFixed(2)}, not the ${expected.amount} charged`);
  return problems;
}

function envelopeSaysFailure(raw: unknown): boolean {
  if (typeof raw !== "object" || raw === null) return false;
  const status = (raw as { status?: unknown }).status;
  return status === false || status === "false" || status === 0;
}

/**
 * Whether a phone as the provider shows it (masked or not, in any usual form) can be ours: every digit it shows
 * equals ours at the same place, counted from the end; masks (`*`, `x`, `•`) show nothing.
 */
export function sameVisibleDigits(shown: string, ours: string): boolean {
  const national = (text: string) => {
    const kept = text.replace(/[^0-9*xX•]/g, "");
    if (kept.startsWith("2340")) return kept.slice(3);
    if (kept.startsWith("234")) return `0${kept.slice(3)}`;
    return kept;
  };
  const a = national(shown);
  const b = national(ours);
  if (a.length === 0) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (/[0-9]/.test(a[i]!) && a[i] !== b[i]) return false;
  }
  return true;
}
