// The combined dry-run plan as a value (`topsync plan`): what the purchases due in a window would buy and
// cost against the budgets and the wallet, and what the website reconciler would change; plus what is unknown.

import type { RemoteWebsite } from "../analytics/schemas.js";
import type { Config, PurchaseJob } from "../config/index.js";
import type { Money } from "../money.js";
import type { PriceReport, RecordedPrices } from "../purchases/prices.js";
import type {
  AboveMax,
  DayLine,
  NetworkTotal,
  ProjectedItem,
  ProjectedRun,
  ProjectionTotals,
  PurchaseProjection,
  WalletLine,
} from "../purchases/projection.js";
import type { Catalogue } from "../purchases/resolve.js";
import type { UnusablePlan } from "../reseller/schemas.js";
import type { DeleteRefusal } from "../websites/guards.js";
import type { MissingCheck } from "../websites/missing.js";
import type { Ownership, Plan as WebsitePlan } from "../websites/model.js";
import type { ApprovalsView, OpenPlan } from "./approvals-view.js";

/** A part of the plan that could not be known (a service down, too many fires): the plan is incomplete. */
export interface UnknownPart {
  part: string;
  reason: string;
}

// ------------------------------------------------------------------------------------------------ inputs

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
  /** A suspended or paused job: its fires are listed, not bought. */
  stopped?: { state: string; note: string | null };
}

/** Everything the forecast is decided from, read without writing anything. */
export interface ForecastInputs {
  now: Date;
  to: Date;
  config: Config;
  jobs: JobFires[];
  /** The purchase projection over the window (src/purchases/projection.ts), decided as its sources streamed. */
  purchases: PurchaseProjection;
  /** Null when the reseller's networks could not be read. */
  catalogue: Catalogue | null;
  recordedPrices: RecordedPrices | null;
  /** Null when the analytics service's listing could not be read. */
  websites: WebsiteInputs | null;
  unknown: UnknownPart[];
  /** Saved plans still open (the approval gate). */
  openPlans?: OpenPlan[];
}

/** The remote listing, the ownership table, and what looking up by id the owned websites the listing missed found. */
export interface WebsiteInputs {
  remote: RemoteWebsite[];
  ownership: Ownership;
  /** Absent until the look-ups are made (the plan they are decided from is made without them). */
  missing?: MissingCheck;
}

// ------------------------------------------------------------------------------------------------ the forecast

export type JobStatus =
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
  status: JobStatus;
  reason?: string;
  fires: Date[];
  nextFire: Date | null;
  /** Why the job's `at` time will never fire. */
  willNotFire: string | null;
  /** active, suspended or paused: the fires of a job that is not active are not bought. */
  state: string;
  stateNote: string | null;
}

export interface PurchaseForecast {
  jobs: JobLine[];
  runs: ProjectedRun[];
  items: ProjectedItem[];
  /** Candidates decided and counted but not listed (beyond the command's limit). */
  itemsOmitted: number;
  byNetwork: NetworkTotal[];
  byDay: DayLine[];
  wallet: WalletLine;
  budget: { dailyLimit: Money | null; perRunLimit: Money | null; minWalletBalance: Money };
  prices: PriceReport;
  aboveMax: AboveMax[];
  /** Plans the live list shows that cannot be bought (a price that is not a positive decimal), with the reason. */
  unusablePlans: UnusablePlan[];
  totals: ProjectionTotals;
}

export interface WebsitePart {
  plan: WebsitePlan;
  refusal?: DeleteRefusal;
}

export interface Forecast {
  generatedAt: Date;
  from: Date;
  to: Date;
  timezone: string;
  complete: boolean;
  unknown: UnknownPart[];
  purchases: PurchaseForecast;
  /** Null when the remote listing could not be read (then `unknown` says so). */
  websites: WebsitePart | null;
  /** Something would be bought or a website changed: `--detailed-exitcode` exits 2. */
  pending: boolean;
  /** The approval gate: runs it would hold, and saved plans still open. */
  approvals?: ApprovalsView;
}
