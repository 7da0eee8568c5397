// What happened, as a value (DESIGN §7 `report`): spend, outcomes, verification latency, the purchases a
// person must settle, failures by the provider's message, and the website passes. Built by ledger-build.ts.
import type { Money } from "../money.js";
import type { RunCounts } from "../websites/runs.js";

/** The ledger's answers as read (ledger-read.ts): amounts still decimal strings, times as the driver gave. */
export interface LedgerRows {
  anything: { purchases: boolean; websiteRuns: boolean };
  states: Array<{ state: string; n: number; amount: string }>;
  days: Array<{
    day: string;
    sent: number;
    succeeded: number;
    spent: string;
    unsettled: string;
    failed: number;
    /** What the failed purchases would have cost (their refunds are in `refunded`). */
    failed_amount: string;
    refunded: string;
  }>;
  networks: GroupRow[];
  jobs: GroupRow[];
  latency: { n: number; p50: number | null; p95: number | null };
  open: Array<{
    id: number | string;
    state: string;
    job_name: string | null;
    source: string;
    phone: string;
    network: string;
    plan_id: string | null;
    plan_name: string | null;
    amount: string | null;
    reference: string | null;
    note: string | null;
    since: Date | string;
  }>;
  failures: Array<{ message: string; n: number; amount: string; refunded: string }>;
  passTotals: Array<{ status: string; n: number; created: number; updated: number; deleted: number }>;
  passes: Array<
    RunCounts & {
      id: number | string;
      started_at: Date | string;
      finished_at: Date | string | null;
      mode: string;
      status: string;
      errors: unknown;
      summary: unknown;
    }
  >;
}

export interface GroupRow {
  key: string;
  name: string;
  sent: number;
  succeeded: number;
  failed: number;
  spent: string;
  unsettled: string;
}

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
  websites: {
    passes: number;
    byStatus: Record<string, number>;
    created: number;
    updated: number;
    deleted: number;
    /** The latest passes (up to ledger-read's limit), newest first. */
    shown: WebsitePass[];
  };
}
