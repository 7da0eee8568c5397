// The combined dry-run plan as a value (DESIGN §7 `plan`): what the purchases due in a window would buy and
// cost against the budgets and the wallet, and what the website reconciler would change; plus what is unknown.
import type { RemoteWebsite } from "../analytics/schemas.js";
import type { Config, PurchaseJob } from "../config/index.js";
import type { Money } from "../money.js";
import type { DryRunItem } from "../purchases/dry-run.js";
import type { NewPurchase } from "../purchases/ledger.js";
import type { Catalogue } from "../purchases/resolve.js";
import type { DeleteRefusal } from "../websites/guards.js";
import type { Ownership, Plan as WebsitePlan } from "../websites/model.js";
import type { RecordedPrices } from "./plan-prices.js";

/** A part of the plan that could not be known (a service down, too many fires): the plan is incomplete. */
export interface UnknownPart {
  part: string;
  reason: string;
}

// ------------------------------------------------------------------------------------------------ inputs

export type RunKind = "queued" | "intake" | "fire";

/** Rows one run would take at one time: the ledger's queue, intake requests, or one fire of one job. */
export interface CandidateRun {
  kind: RunKind;
  time: Date;
  job: string | null;
  fireTime: Date | null;
  rows: NewPurchase[];
  /** Why this fire would write nothing (its recipients file cannot be read). */
  error?: string;
}

export interface JobFires {
  job: PurchaseJob;
  /** The fire due now (the latest missed one within catch_up), if any. */
  dueNow: Date | null;
  /** Fires after now and up to the window's end, oldest first. */
  fires: Date[];
  /** The first fire after the window (node-cron's next runs), for jobs with a schedule or an `at`. */
  nextFire: Date | null;
  /** Why the job's `at` time will never fire (it passed before the job was first seen). */
  willNotFire?: string;
}

/** Everything the plan is decided from, read without writing anything. */
export interface PlanInputs {
  now: Date;
  to: Date;
  config: Config;
  jobs: JobFires[];
  runs: CandidateRun[];
  /** Request keys of `runs` already in the ledger. */
  existing: ReadonlySet<string>;
  /** Null when the reseller's networks could not be read. */
  catalogue: Catalogue | null;
  ledger: {
    inFlight: Money;
    wallet: { balance: Money; asOf: Date | null } | null;
    /** Committed so far per budget day the window touches. */
    committedByDay: ReadonlyMap<string, Money>;
  };
  recordedPrices: RecordedPrices | null;
  /** Null when the analytics service's listing could not be read. */
  websites: { remote: RemoteWebsite[]; ownership: Ownership } | null;
  unknown: UnknownPart[];
}

// ------------------------------------------------------------------------------------------------ the plan

export type ItemOutcome = "buy" | "reject" | "exists" | "duplicate" | "unknown";

/** One candidate purchase and what the plan decided for it (a dry-run item with its run and refusal code). */
export interface PlanItem extends Omit<DryRunItem, "amount" | "outcome"> {
  /** Index of its run in `runs`. */
  run: number;
  amount: Money | null;
  outcome: ItemOutcome;
  code?: string;
}

export interface PlanRun {
  index: number;
  kind: RunKind;
  time: Date;
  /** The budget day (YYYY-MM-DD in config's timezone) it would spend from. */
  day: string;
  job: string | null;
  fireTime: Date | null;
  error?: string;
  candidates: number;
  toBuy: number;
  rejected: number;
  existing: number;
  duplicates: number;
  unknown: number;
  cost: Money;
  /** The guards that refused something in it: daily_budget, run_budget, wallet_floor. */
  refusedBy: string[];
}

export type JobPlanStatus =
  | "ok"
  | "price_above_max"
  | "plan_not_found"
  | "unknown_network"
  | "catalogue_unavailable";

export interface JobLine {
  job: string;
  enabled: boolean;
  schedule: string | null;
  at: Date | null;
  timezone: string;
  requested: string;
  networkId: string | null;
  network: string | null;
  planId: string | null;
  planName: string | null;
  price: Money | null;
  maxPrice: Money | null;
  status: JobPlanStatus;
  reason?: string;
  fires: Date[];
  nextFire: Date | null;
  /** Why the job's `at` time will never fire. */
  willNotFire: string | null;
}

export interface NetworkTotal {
  network: string;
  count: number;
  cost: Money;
}

export interface DayLine {
  day: string;
  /** Already committed in the ledger for that day. */
  committed: Money;
  /** Bought by this plan on that day. */
  projected: Money;
  count: number;
  dailyLimit: Money | null;
  /** dailyLimit − committed − projected, when there is a limit. */
  headroom: Money | null;
  /** Index of the run at which the daily budget refuses its first purchase. */
  runsOutAt: number | null;
}

export interface WalletLine {
  /** The last balance the reseller reported (kept by purchase runs), or null before the first purchase. */
  balance: Money | null;
  asOf: Date | null;
  inFlight: Money;
  projectedSpend: Money;
  /** balance − in flight − projected spend. */
  projectedBalance: Money | null;
  minBalance: Money;
  /** projectedBalance − min_wallet_balance. */
  headroom: Money | null;
  /** Index of the run at which the wallet floor refuses its first purchase. */
  runsOutAt: number | null;
}

export interface PriceChange {
  networkId: string;
  network: string;
  planId: string;
  name: string;
  from: Money;
  to: Money;
}

export interface PriceReport {
  recordedAt: Date | null;
  /** Changes of the plans this plan would buy or refuse. */
  changes: PriceChange[];
  /** How many other plans changed price. */
  otherChanges: number;
}

export interface AboveMax {
  job: string | null;
  source: string;
  reason: string;
  count: number;
}

export interface PurchasePlan {
  jobs: JobLine[];
  runs: PlanRun[];
  items: PlanItem[];
  byNetwork: NetworkTotal[];
  byDay: DayLine[];
  wallet: WalletLine;
  budget: { dailyLimit: Money | null; perRunLimit: Money | null; minWalletBalance: Money };
  prices: PriceReport;
  aboveMax: AboveMax[];
  totals: {
    toBuy: number;
    cost: Money;
    rejected: number;
    existing: number;
    duplicates: number;
    unknown: number;
  };
}

export interface WebsitePart {
  plan: WebsitePlan;
  refusal?: DeleteRefusal;
}

export interface PlanReport {
  generatedAt: Date;
  from: Date;
  to: Date;
  timezone: string;
  complete: boolean;
  unknown: UnknownPart[];
  purchases: PurchasePlan;
  /** Null when the remote listing could not be read (then `unknown` says so). */
  websites: WebsitePart | null;
  /** Something would be bought or a website changed: `--detailed-exitcode` exits 2. */
  pending: boolean;
}
