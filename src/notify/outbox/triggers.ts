// The named triggers an operator can be told of, and the kinds of outbox rows. One list, read by the config's
// rules, the writer, the router and the templates.

export const TRIGGERS = [
  "in_doubt",
  "unverified",
  "verify_mismatch",
  "price_mismatch",
  "reversed",
  "delivered_after_failure",
  "earlier_attempt_delivered",
  "run_failed",
  "budget",
  "wallet_low",
  "approval_needed",
  "approval_expiring",
  "plan_expired",
  "website_drift",
  "website_apply_failed",
  "mass_delete_refused",
  "notification_unmatched",
  "missed_fire",
  "digest",
] as const;
export type Trigger = (typeof TRIGGERS)[number];

/** open: an episode starts; repeat: it is still open after `repeat`; resolved: it ended. */
export const NOTICE_KINDS = ["open", "repeat", "resolved"] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

/** Triggers whose episode is one purchase: their rows carry the purchase's facts (`PurchaseFacts`). */
export const PURCHASE_TRIGGERS = [
  "in_doubt",
  "unverified",
  "verify_mismatch",
  "price_mismatch",
  "reversed",
  "delivered_after_failure",
  "earlier_attempt_delivered",
] as const;

export function isTrigger(value: string): value is Trigger {
  return (TRIGGERS as readonly string[]).includes(value);
}

/** What an outbox row of a purchase trigger says: no full phone number, no request key (it holds the phone). */
export interface PurchaseFacts {
  purchase: number;
  phone: string;
  network: string | null;
  plan: string | null;
  job: string | null;
  amount: string | null;
  state: string;
  from: string | null;
  reason: string | null;
  reference: string | null;
  note: string | null;
}
