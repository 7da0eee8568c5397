// What a purchase run would buy, and whether it may: one pure decision (no I/O) over the due sources, the live
// catalogue, the ledger's existing keys and the guard state. `purchases run --dry-run`, `buy --dry-run` and
// `topsync plan` print this value; the executor resolves each row it claims with the same `resolveRow`, and its
// claim statement walks the same guards in SQL (test/purchases/guards.test.ts holds the two to one answer).
import type { Config } from "../config/index.js";
import { type Money, parseMoney, ZERO } from "../money.js";
import { findNetwork } from "../reseller/catalogue.js";
import { applyGuards, budgetDay, type GuardLimits } from "./guards.js";
import type { NewPurchase } from "./ledger.js";
import {
  type Catalogue,
  type PlanSelector,
  type PurchaseRequest,
  type Resolved,
  resolvePurchase,
} from "./resolve.js";

/** One vocabulary for every candidate, whichever command shows it. */
export type Outcome = "buy" | "reject" | "exists" | "duplicate" | "unknown";
export type RunKind = "queued" | "intake" | "fire" | "buy";

/** A purchase as the ledger holds it or as a source would write it. */
export type SourceRow = Pick<
  NewPurchase,
  | "request_key"
  | "source"
  | "job_name"
  | "network"
  | "plan_id"
  | "plan_selector"
  | "phone"
  | "ported"
  | "max_price"
>;

/** Rows one run would take at one time: the queue, intake requests, one fire of one job, or one `buy`. */
export interface SourceRun {
  kind: RunKind;
  time: Date;
  job: string | null;
  fireTime: Date | null;
  rows: SourceRow[];
  /** Why this fire would write nothing (its recipients file cannot be used). */
  error?: string;
}

export interface LedgerState {
  /** What the last reported balance cannot include yet. */
  inFlight: Money;
  wallet: { balance: Money; asOf: Date | null } | null;
  /** Committed so far per budget day the runs touch. */
  committedByDay: ReadonlyMap<string, Money>;
}

export interface ProjectionInputs {
  now: Date;
  timeZone: string;
  limits: GuardLimits;
  /** In time order, as runs would take them. */
  runs: SourceRun[];
  /** Request keys of rows not yet in the ledger that it already has. */
  existing: ReadonlySet<string>;
  /** Null when the reseller's networks could not be read. */
  catalogue: Catalogue | null;
  ledger: LedgerState;
}

export interface ProjectedItem {
  request_key: string;
  source: string;
  job: string | null;
  phone: string;
  network: string;
  plan: string | null;
  amount: Money | null;
  outcome: Outcome;
  /** Why it is not bought: a resolution or guard code, or exists / duplicate. */
  code?: string;
  reason?: string;
  /** Index of its run. */
  run: number;
}

export interface ProjectedRun {
  index: number;
  kind: RunKind;
  time: Date;
  /** The budget day it spends from. */
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
  /** The guards that refused something in it. */
  refusedBy: string[];
}

export interface NetworkTotal {
  network: string;
  count: number;
  cost: Money;
}

export interface DayLine {
  day: string;
  committed: Money;
  projected: Money;
  count: number;
  dailyLimit: Money | null;
  headroom: Money | null;
  /** Index of the run at which the daily budget refuses its first purchase. */
  runsOutAt: number | null;
}

export interface WalletLine {
  balance: Money | null;
  asOf: Date | null;
  inFlight: Money;
  projectedSpend: Money;
  projectedBalance: Money | null;
  minBalance: Money;
  headroom: Money | null;
  runsOutAt: number | null;
}

export interface AboveMax {
  job: string | null;
  source: string;
  reason: string;
  count: number;
}

export interface ProjectionTotals {
  toBuy: number;
  cost: Money;
  rejected: number;
  existing: number;
  duplicates: number;
  unknown: number;
}

export interface PurchaseProjection {
  runs: ProjectedRun[];
  items: ProjectedItem[];
  byNetwork: NetworkTotal[];
  byDay: DayLine[];
  wallet: WalletLine;
  aboveMax: AboveMax[];
  totals: ProjectionTotals;
  /** `<network id>:<plan id>` of every plan a candidate resolved to. */
  usedPlans: Set<string>;
  /** Networks whose plans could not be read although a candidate needed them. */
  unavailable: Set<string>;
}

const DUPLICATE =
  "listed more than once: the ledger keeps one purchase per request key, so this number is bought once";
const EXISTS = "already in the ledger";

/** The guard limits of a config: the only place they are built. */
export function guardLimits(budget: Config["budget"]): GuardLimits {
  return {
    dailyLimit: budget.daily_limit,
    perRunLimit: budget.per_run_limit,
    minWalletBalance: budget.min_wallet_balance,
  };
}

/** A row as the resolution reads it. */
export function toRequest(row: Omit<SourceRow, "request_key" | "source">): PurchaseRequest {
  return {
    network: row.network,
    plan_id: row.plan_id,
    plan_selector: (row.plan_selector ?? null) as PlanSelector | null,
    phone: row.phone,
    ported: row.ported ?? false,
    max_price: row.max_price ? parseMoney(row.max_price) : null,
  };
}

export type Resolution =
  | { outcome: "buy"; resolved: Resolved }
  | { outcome: "reject" | "unknown"; code: string; reason: string };

/** One row against the catalogue: buy (if the guards allow), reject with a code, or unknown (plans unread). */
export function resolveRow(
  row: Omit<SourceRow, "request_key" | "source">,
  catalogue: Catalogue | null,
): Resolution {
  if (!catalogue)
    return {
      outcome: "unknown",
      code: "catalogue_unavailable",
      reason: "the reseller's networks could not be read",
    };
  const r = resolvePurchase(toRequest(row), catalogue);
  if (r.ok) return { outcome: "buy", resolved: r };
  return {
    outcome: r.code === "catalogue_unavailable" ? "unknown" : "reject",
    code: r.code,
    reason: r.reason,
  };
}

export function priceKey(networkId: string, planId: string): string {
  return `${networkId}:${planId}`;
}

/** What the runs carry forward: keys seen, spend per day and per run, where the budgets ran out. */
interface Running {
  seen: Set<string>;
  projectedByDay: Map<string, Money>;
  countByDay: Map<string, number>;
  runCommitted: Map<number, Money>;
  dailyRunsOut: Map<string, number>;
  walletRunsOut: number | null;
  spent: Money;
}

interface Classified {
  item: ProjectedItem;
  resolved?: Resolved;
}

export function projectPurchases(inputs: ProjectionInputs): PurchaseProjection {
  const running: Running = {
    seen: new Set(),
    projectedByDay: new Map(),
    countByDay: new Map(),
    runCommitted: new Map(),
    dailyRunsOut: new Map(),
    walletRunsOut: null,
    spent: ZERO,
  };
  const items: ProjectedItem[] = [];
  const runs: ProjectedRun[] = [];
  const usedPlans = new Set<string>();
  const unavailable = new Set<string>();
  inputs.runs.forEach((run, index) => {
    const classified = run.rows.map((row) => classify(row, run, index, inputs, running.seen));
    for (const c of classified) {
      if (c.resolved) usedPlans.add(priceKey(c.resolved.network.id, c.resolved.plan.id));
      if (c.item.code === "catalogue_unavailable" && inputs.catalogue)
        unavailable.add(findNetwork(inputs.catalogue.networks, c.item.network)?.name ?? c.item.network);
    }
    runs.push(guardRun(run, index, classified, inputs, running));
    for (const c of classified) items.push(c.item);
  });
  const sum = (key: "toBuy" | "rejected" | "existing" | "duplicates" | "unknown") =>
    runs.reduce((n, r) => n + r[key], 0);
  return {
    runs,
    items,
    byNetwork: networkTotals(items),
    byDay: dayLines(inputs, running),
    wallet: walletLine(inputs, running),
    aboveMax: aboveMax(items),
    totals: {
      toBuy: sum("toBuy"),
      cost: running.spent,
      rejected: sum("rejected"),
      existing: sum("existing"),
      duplicates: sum("duplicates"),
      unknown: sum("unknown"),
    },
    usedPlans,
    unavailable,
  };
}

function classify(
  row: SourceRow,
  run: SourceRun,
  index: number,
  inputs: ProjectionInputs,
  seen: Set<string>,
): Classified {
  const base: ProjectedItem = {
    request_key: row.request_key,
    source: row.source,
    job: row.job_name ?? null,
    phone: row.phone,
    network: row.network,
    plan: row.plan_id ?? null,
    amount: null,
    outcome: "buy",
    run: index,
  };
  if (run.kind !== "queued" && inputs.existing.has(row.request_key))
    return { item: { ...base, outcome: "exists", code: "exists", reason: EXISTS } };
  if (seen.has(row.request_key))
    return { item: { ...base, outcome: "duplicate", code: "duplicate", reason: DUPLICATE } };
  seen.add(row.request_key);
  const r = resolveRow(row, inputs.catalogue);
  if (r.outcome !== "buy") return { item: { ...base, outcome: r.outcome, code: r.code, reason: r.reason } };
  const { network, plan, amount, phone } = r.resolved;
  return {
    item: { ...base, network: network.name, plan: `${plan.id} ${plan.name}`, amount, phone },
    resolved: r.resolved,
  };
}

/** The guards over one run in claim order, as the claim statement walks them, after what earlier runs spent. */
function guardRun(
  run: SourceRun,
  index: number,
  classified: Classified[],
  inputs: ProjectionInputs,
  running: Running,
): ProjectedRun {
  const day = budgetDay(run.time, inputs.timeZone);
  const runKey = run.time.getTime();
  const resolved = classified.filter((c) => c.resolved);
  const decisions = applyGuards(
    resolved.map((c) => c.resolved!.amount),
    inputs.limits,
    {
      dailyCommitted: add(inputs.ledger.committedByDay.get(day), running.projectedByDay.get(day)),
      runCommitted: running.runCommitted.get(runKey) ?? ZERO,
      walletBalance: inputs.ledger.wallet?.balance.minus(running.spent),
      inFlight: inputs.ledger.inFlight,
    },
  );
  const refusedBy = new Set<string>();
  let cost = ZERO;
  resolved.forEach((c, i) => {
    const decision = decisions[i]!;
    if (decision.ok) {
      cost = cost.plus(c.resolved!.amount);
      return;
    }
    c.item = { ...c.item, outcome: "reject", code: decision.code, reason: decision.reason };
    refusedBy.add(decision.code);
    if (decision.code === "daily_budget" && !running.dailyRunsOut.has(day))
      running.dailyRunsOut.set(day, index);
    if (decision.code === "wallet_floor") running.walletRunsOut ??= index;
  });
  const count = (outcome: Outcome) => classified.filter((c) => c.item.outcome === outcome).length;
  running.spent = running.spent.plus(cost);
  running.projectedByDay.set(day, add(running.projectedByDay.get(day), cost));
  running.runCommitted.set(runKey, add(running.runCommitted.get(runKey), cost));
  running.countByDay.set(day, (running.countByDay.get(day) ?? 0) + count("buy"));
  return {
    index,
    kind: run.kind,
    time: run.time,
    day,
    job: run.job,
    fireTime: run.fireTime,
    ...(run.error ? { error: run.error } : {}),
    candidates: classified.length,
    toBuy: count("buy"),
    rejected: count("reject"),
    existing: count("exists"),
    duplicates: count("duplicate"),
    unknown: count("unknown"),
    cost,
    refusedBy: [...refusedBy],
  };
}

function add(a: Money | undefined, b: Money | undefined): Money {
  return (a ?? ZERO).plus(b ?? ZERO);
}

function networkTotals(items: ProjectedItem[]): NetworkTotal[] {
  const totals = new Map<string, NetworkTotal>();
  for (const item of items) {
    if (item.outcome !== "buy" || !item.amount) continue;
    const total = totals.get(item.network) ?? { network: item.network, count: 0, cost: ZERO };
    totals.set(item.network, { ...total, count: total.count + 1, cost: total.cost.plus(item.amount) });
  }
  return [...totals.values()].sort((a, b) => a.network.localeCompare(b.network));
}

/** Every budget day the runs touch (today included), against daily_limit. */
function dayLines(inputs: ProjectionInputs, running: Running): DayLine[] {
  const today = budgetDay(inputs.now, inputs.timeZone);
  const days = [...new Set([today, ...running.projectedByDay.keys()])].sort();
  const limit = inputs.limits.dailyLimit ?? null;
  return days.map((day) => {
    const committed = inputs.ledger.committedByDay.get(day) ?? ZERO;
    const projected = running.projectedByDay.get(day) ?? ZERO;
    return {
      day,
      committed,
      projected,
      count: running.countByDay.get(day) ?? 0,
      dailyLimit: limit,
      headroom: limit ? limit.minus(committed).minus(projected) : null,
      runsOutAt: running.dailyRunsOut.get(day) ?? null,
    };
  });
}

function walletLine(inputs: ProjectionInputs, running: Running): WalletLine {
  const wallet = inputs.ledger.wallet;
  const minBalance = inputs.limits.minWalletBalance;
  const projectedBalance = wallet ? wallet.balance.minus(inputs.ledger.inFlight).minus(running.spent) : null;
  return {
    balance: wallet?.balance ?? null,
    asOf: wallet?.asOf ?? null,
    inFlight: inputs.ledger.inFlight,
    projectedSpend: running.spent,
    projectedBalance,
    minBalance,
    headroom: projectedBalance ? projectedBalance.minus(minBalance) : null,
    runsOutAt: running.walletRunsOut,
  };
}

/** Purchases refused because the live price is above max_price, grouped by job (or source) and reason. */
function aboveMax(items: ProjectedItem[]): AboveMax[] {
  const groups = new Map<string, AboveMax>();
  for (const item of items) {
    if (item.code !== "price_above_max") continue;
    const key = `${item.job ?? item.source}\n${item.reason}`;
    const group = groups.get(key) ?? {
      job: item.job,
      source: item.source,
      reason: item.reason ?? "",
      count: 0,
    };
    groups.set(key, { ...group, count: group.count + 1 });
  }
  return [...groups.values()];
}
