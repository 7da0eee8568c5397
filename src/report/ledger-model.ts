// What happened, as a value (`topsync report`): spend, outcomes, verification latency, the purchases a
// person must settle, failures by the provider's message, and the website passes. Built by ledger-build.ts.

import type { Money } from "../money.js";
import type { GroupRow, SpendRows } from "../purchases/history-read.js";
import type { MissedFire } from "../purchases/job-list.js";
import type { JobEvent } from "../purchases/job-states.js";
import type { RunCounts } from "../websites/runs.js";
import type { PassRows } from "../websites/runs-read.js";
import type { OpenPlan } from "./approvals-view.js";

export type { GroupRow };

/** The ledger's answers as read (purchases/history-read.ts, websites/runs-read.ts). */
export type LedgerRows = Omit<SpendRows, "anyPurchases"> &
  Omit<PassRows, "anyRuns"> & { anything: { purchases: boolean; websiteRuns: boolean } };

export interface SpendDay {
  day: string;
  sent: number;
  succeeded: number;
  spent: Money;
  unsettled: Money;
  failed: number;
  /** What the day's failed purchases would have cost. */
  failedAmount: Money;
  refunded: Money;
}

export interface GroupTotal {
  name: string;
  sent: number;
  succeeded: number;
  failed: number;
  spent: Money;
  unsettled: Money;
}

export interface OpenPurchase {
  id: number;
  state: string;
  job: string | null;
  source: string;
  phone: string;
  network: string;
  plan: string | null;
  amount: Money | null;
  reference: string | null;
  /** What an operator should know: a verify_mismatch or a price_mismatch. */
  note: string | null;
  since: Date;
  ageMs: number;
  /** The command that settles it. */
  settle: string;
}

export interface FailureGroup {
  message: string;
  count: number;
  amount: Money;
  refunded: Money;
}

/** One pass of the website reconciler, with the counts `website_runs` keeps (src/websites/runs.ts). */
export interface WebsitePass extends RunCounts {
  id: number;
  startedAt: Date;
  finishedAt: Date | null;
  mode: string;
  status: string;
  errors: string[];
  /** What the pass changed (apply) or found drifted (plan, observe); unmanaged websites left out. */
  changes: Array<{ action: string; domain: string }>;
}

/** A notification message given up on (not delivered within notifications.give_up_after). */
export interface FailedNotification {
  id: number;
  channel: string;
  trigger: string;
  events: number;
  attempts: number;
  createdAt: Date;
  lastError: string | null;
}

export interface LedgerReport {
  generatedAt: Date;
  since: Date;
  timezone: string;
  /** "ledger": nothing was ever recorded; "period": nothing in this period; null: there is something. */
  empty: "ledger" | "period" | null;
  purchases: {
    total: number;
    byState: Array<{ state: string; count: number; amount: Money }>;
    spent: Money;
    unsettled: Money;
    refunded: Money;
    successRate: { succeeded: number; settled: number };
    latency: { samples: number; p50Ms: number; p95Ms: number } | null;
    byDay: SpendDay[];
    byNetwork: GroupTotal[];
    byJob: GroupTotal[];
    failures: FailureGroup[];
  };
  /** Every in_doubt and unverified purchase, whatever its age, and the period's overcharged purchases. */
  open: OpenPurchase[];
  /** Saved plans waiting for approvers or apply (the approval gate). */
  openPlans?: OpenPlan[];
  websites: {
    passes: number;
    byStatus: Record<string, number>;
    created: number;
    updated: number;
    deleted: number;
    /** The latest passes (up to runs-read's limit), newest first. */
    shown: WebsitePass[];
  };
  /** Fires the jobs missed in the period, and the jobs suspended, paused or resumed in it. */
  schedules?: {
    missed: MissedFire[];
    missedByJob: Array<{ job: string; missed: number }>;
    stateChanges: JobEvent[];
  };
  /** Notification messages of the period that failed for good (absent where the report was built without them). */
  notificationsFailed?: FailedNotification[];
}
