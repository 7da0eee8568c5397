// The purchases of a plan, decided without I/O by the executor's own resolvePurchase and applyGuards, run
// after run in time order: each spends from its budget day and from the wallet the runs before it left.
import { type Money, ZERO } from "../money.js";
import { describeRow, toRequest } from "../purchases/dry-run.js";
import { applyGuards, budgetDay, type GuardLimits } from "../purchases/guards.js";
import type { NewPurchase } from "../purchases/ledger.js";
import { type Resolved, resolvePurchase } from "../purchases/resolve.js";
import { findNetwork } from "../reseller/catalogue.js";
import type {
  AboveMax,
  CandidateRun,
  DayLine,
  NetworkTotal,
  PlanInputs,
  PlanItem,
  PlanRun,
  WalletLine,
} from "./plan-model.js";
import { priceKey } from "./plan-prices.js";

const DUPLICATE =
  "listed more than once: the ledger keeps one purchase per request key, so this number is bought once";

interface Classified {
  item: PlanItem;
  resolved?: Resolved;
}

/** What the projection carries from run to run. */
interface Running {
  seen: Set<string>;
  projectedByDay: Map<string, Money>;
  countByDay: Map<string, number>;
  runCommitted: Map<number, Money>;
  dailyRunsOut: Map<string, number>;
  walletRunsOut: number | null;
  spent: Money;
}

export interface PurchaseProjection {
  runs: PlanRun[];
  items: PlanItem[];
  byNetwork: NetworkTotal[];
  byDay: DayLine[];
  wallet: WalletLine;
  aboveMax: AboveMax[];
  /** `<network id>:<plan id>` of every plan a candidate resolved to. */
  usedPlans: Set<string>;
  /** Networks whose plans could not be read although a candidate needed them. */
  unavailable: Set<string>;
}

export function projectPurchases(inputs: PlanInputs): PurchaseProjection {
  const running: Running = {
    seen: new Set(),
    projectedByDay: new Map(),
    countByDay: new Map(),
    runCommitted: new Map(),
    dailyRunsOut: new Map(),
    walletRunsOut: null,
    spent: ZERO,
  };
  const items: PlanItem[] = [];
  const runs: PlanRun[] = [];
  const usedPlans = new Set<string>();
  const unavailable = new Set<string>();
  inputs.runs.forEach((candidate, index) => {
    const classified = candidate.rows.map((row) => classify(row, candidate, index, inputs, running.seen));
    for (const c of classified) {
      if (c.resolved) usedPlans.add(priceKey(c.resolved.network.id, c.resolved.plan.id));
      if (c.item.code === "catalogue_unavailable" && inputs.catalogue) {
        unavailable.add(findNetwork(inputs.catalogue.networks, c.item.network)?.name ?? c.item.network);
      }
    }
    const run = guardRun(candidate, index, classified, inputs, running);
    runs.push(run);
    for (const c of classified) items.push(c.item);
  });
  return {
    runs,
    items,
    byNetwork: networkTotals(items),
    byDay: dayLines(inputs, running),
    wallet: walletLine(inputs, running),
    aboveMax: aboveMax(items),
    usedPlans,
    unavailable,
  };
}

function classify(
  row: NewPurchase,
  run: CandidateRun,
  index: number,
  inputs: PlanInputs,
  seen: Set<string>,
): Classified {
  const base: PlanItem = { ...describeRow(row), run: index, amount: null, outcome: "buy" };
  if (run.kind !== "queued" && inputs.existing.has(row.request_key)) {
    return { item: { ...base, outcome: "exists", reason: "already in the ledger" } };
  }
  if (seen.has(row.request_key))
    return { item: { ...base, outcome: "duplicate", code: "duplicate", reason: DUPLICATE } };
  seen.add(row.request_key);
  if (!inputs.catalogue) {
    const reason = "the reseller's networks could not be read";
    return { item: { ...base, outcome: "unknown", code: "catalogue_unavailable", reason } };
  }
  const r = resolvePurchase(toRequest(row), inputs.catalogue);
  if (!r.ok) {
    const outcome = r.code === "catalogue_unavailable" ? "unknown" : "reject";
    return { item: { ...base, outcome, code: r.code, reason: r.reason } };
  }
  const plan = `${r.plan.id} ${r.plan.name}`;
  return { item: { ...base, network: r.network.name, plan, amount: r.amount, phone: r.phone }, resolved: r };
}

/** The guards over one run, as the executor would apply them, starting from what earlier runs spent. */
function guardRun(
  candidate: CandidateRun,
  index: number,
  classified: Classified[],
  inputs: PlanInputs,
  running: Running,
): PlanRun {
  const day = budgetDay(candidate.time, inputs.config.timezone);
  const runKey = candidate.time.getTime();
  const resolved = classified.filter((c) => c.resolved);
  const decisions = applyGuards(
    resolved.map((c) => c.resolved!.amount),
    guardLimits(inputs),
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
  const count = (outcome: PlanItem["outcome"]) => classified.filter((c) => c.item.outcome === outcome).length;
  running.spent = running.spent.plus(cost);
  running.projectedByDay.set(day, add(running.projectedByDay.get(day), cost));
  running.runCommitted.set(runKey, add(running.runCommitted.get(runKey), cost));
  running.countByDay.set(day, (running.countByDay.get(day) ?? 0) + count("buy"));
  return {
    index,
    kind: candidate.kind,
    time: candidate.time,
    day,
    job: candidate.job,
    fireTime: candidate.fireTime,
    ...(candidate.error ? { error: candidate.error } : {}),
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

function guardLimits(inputs: PlanInputs): GuardLimits {
  const budget = inputs.config.budget;
  return {
    dailyLimit: budget.daily_limit,
    perRunLimit: budget.per_run_limit,
    minWalletBalance: budget.min_wallet_balance,
  };
}

function add(a: Money | undefined, b: Money | undefined): Money {
  return (a ?? ZERO).plus(b ?? ZERO);
}

function networkTotals(items: PlanItem[]): NetworkTotal[] {
  const totals = new Map<string, NetworkTotal>();
  for (const item of items) {
    if (item.outcome !== "buy" || !item.amount) continue;
    const total = totals.get(item.network) ?? { network: item.network, count: 0, cost: ZERO };
    totals.set(item.network, { ...total, count: total.count + 1, cost: total.cost.plus(item.amount) });
  }
  return [...totals.values()].sort((a, b) => a.network.localeCompare(b.network));
}

/** Every budget day the window touches (today included), against daily_limit. */
function dayLines(inputs: PlanInputs, running: Running): DayLine[] {
  const today = budgetDay(inputs.now, inputs.config.timezone);
  const days = [...new Set([today, ...running.projectedByDay.keys()])].sort();
  const limit = inputs.config.budget.daily_limit ?? null;
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

function walletLine(inputs: PlanInputs, running: Running): WalletLine {
  const wallet = inputs.ledger.wallet;
  const minBalance = inputs.config.budget.min_wallet_balance;
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
function aboveMax(items: PlanItem[]): AboveMax[] {
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
