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
  /** Sent as `ported_number`: the prefix check does not apply. */
  ported?: boolean;
  /** What it resolved to against the live catalogue (network and plan ids, price), when it did. */
  resolved?: Resolved;
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
  /**
   * Its new rows (not the queue's) at live prices, before the guards: what the approval gate weighs when the run
   * starts (plans/gate.ts), so a run the budget would refuse is still held for approval when above a threshold.
   */
  weighed: Money;
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
  /** Items decided and counted but not kept whole (beyond the projector's `keepItems`). */
  itemsOmitted: number;
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
  seen: KeySet;
  projectedByDay: Map<string, Money>;
  countByDay: Map<string, number>;
  runCommitted: Map<number, Money>;
  dailyRunsOut: Map<string, number>;
  walletRunsOut: number | null;
  spent: Money;
}

/** The projection's inputs without the rows: those come through a `Projector`, in batches. */
export type ProjectorInputs = Omit<ProjectionInputs, "runs" | "existing">;

/** The pure decision over rows already in memory, a Projector fed in one go (the tests; commands stream through `projectSources`). */
export function projectPurchases(inputs: ProjectionInputs): PurchaseProjection {
  const projector = new Projector(inputs);
  for (const run of inputs.runs) projector.begin(run).add(run.rows, inputs.existing).close();
  return projector.finish();
}

/**
 * The projection built run by run and batch by batch, so a recipients file of a million rows is decided as it
 * streams: every total is kept as it goes, and at most `keepItems` items are kept whole (the rest are counted).
 * Runs must come in time order, and each run's rows in claim order.
 */
export class Projector {
  private readonly running: Running = {
    seen: new KeySet(),
    projectedByDay: new Map(),
    countByDay: new Map(),
    runCommitted: new Map(),
    dailyRunsOut: new Map(),
    walletRunsOut: null,
    spent: ZERO,
  };
  readonly items: ProjectedItem[] = [];
  private omitted = 0;
  private readonly runs: ProjectedRun[] = [];
  private readonly networks = new Map<string, NetworkTotal>();
  private readonly aboveMax = new Map<string, AboveMax>();
  private readonly usedPlans = new Set<string>();
  private readonly unavailable = new Set<string>();

  constructor(
    private readonly inputs: ProjectorInputs,
    private readonly keepItems = Number.POSITIVE_INFINITY,
  ) {}

  begin(run: Omit<SourceRun, "rows">): RunCursor {
    return new RunCursor(this, run, this.runs.length, this.inputs, this.running);
  }

  /** @internal One decided item of the current run. */
  record(item: ProjectedItem, resolved: Resolved | undefined): void {
    if (resolved) this.usedPlans.add(priceKey(resolved.network.id, resolved.plan.id));
    if (item.code === "catalogue_unavailable" && this.inputs.catalogue)
      this.unavailable.add(findNetwork(this.inputs.catalogue.networks, item.network)?.name ?? item.network);
    if (item.outcome === "buy" && item.amount) {
      const total = this.networks.get(item.network) ?? { network: item.network, count: 0, cost: ZERO };
      this.networks.set(item.network, {
        ...total,
        count: total.count + 1,
        cost: total.cost.plus(item.amount),
      });
    }
    if (item.code === "price_above_max") {
      const key = `${item.job ?? item.source}\n${item.reason}`;
      const group = this.aboveMax.get(key) ?? {
        job: item.job,
        source: item.source,
        reason: item.reason ?? "",
        count: 0,
      };
      this.aboveMax.set(key, { ...group, count: group.count + 1 });
    }
    if (this.items.length < this.keepItems) this.items.push(item);
    else this.omitted++;
  }

  /** @internal A run finished. */
  closed(run: ProjectedRun): void {
    this.runs.push(run);
  }

  finish(): PurchaseProjection {
    const { runs, running, inputs } = this;
    const sum = (key: "toBuy" | "rejected" | "existing" | "duplicates" | "unknown") =>
      runs.reduce((n, r) => n + r[key], 0);
    return {
      runs,
      items: this.items,
      itemsOmitted: this.omitted,
      byNetwork: [...this.networks.values()].sort((a, b) => a.network.localeCompare(b.network)),
      byDay: dayLines(inputs, running),
      wallet: walletLine(inputs, running),
      aboveMax: [...this.aboveMax.values()],
      totals: {
        toBuy: sum("toBuy"),
        cost: running.spent,
        rejected: sum("rejected"),
        existing: sum("existing"),
        duplicates: sum("duplicates"),
        unknown: sum("unknown"),
      },
      usedPlans: this.usedPlans,
      unavailable: this.unavailable,
    };
  }
}

/** One run being projected: its rows classified and its guards walked batch by batch, as the claim walks them. */
export class RunCursor {
  private readonly day: string;
  private readonly runKey: number;
  private readonly counts: Record<Outcome, number> = {
    buy: 0,
    reject: 0,
    exists: 0,
    duplicate: 0,
    unknown: 0,
  };
  private cost = ZERO;
  private weighed = ZERO;
  private readonly refusedBy = new Set<string>();

  constructor(
    private readonly projector: Projector,
    private readonly run: Omit<SourceRun, "rows">,
    private readonly index: number,
    private readonly inputs: ProjectorInputs,
    private readonly running: Running,
  ) {
    this.day = budgetDay(run.time, inputs.timeZone);
    this.runKey = run.time.getTime();
  }

  /** Rows of this run in claim order; `existing` are those of their keys the ledger already has. */
  add(rows: readonly SourceRow[], existing: ReadonlySet<string>): this {
    const { running, inputs } = this;
    const classified = rows.map((row) => this.classify(row, existing));
    const resolved = classified.filter((c) => c.resolved);
    if (this.run.kind !== "queued")
      for (const c of resolved) this.weighed = this.weighed.plus(c.resolved!.amount);
    const decisions = applyGuards(
      resolved.map((c) => c.resolved!.amount),
      inputs.limits,
      {
        dailyCommitted: add(
          inputs.ledger.committedByDay.get(this.day),
          running.projectedByDay.get(this.day),
        ).plus(this.cost),
        runCommitted: (running.runCommitted.get(this.runKey) ?? ZERO).plus(this.cost),
        walletBalance: inputs.ledger.wallet?.balance.minus(running.spent).minus(this.cost),
        inFlight: inputs.ledger.inFlight,
      },
    );
    resolved.forEach((c, i) => {
      const decision = decisions[i]!;
      if (decision.ok) {
        this.cost = this.cost.plus(c.resolved!.amount);
        return;
      }
      c.item = { ...c.item, outcome: "reject", code: decision.code, reason: decision.reason };
      this.refusedBy.add(decision.code);
      if (decision.code === "daily_budget" && !running.dailyRunsOut.has(this.day))
        running.dailyRunsOut.set(this.day, this.index);
      if (decision.code === "wallet_floor") running.walletRunsOut ??= this.index;
    });
    for (const c of classified) {
      this.counts[c.item.outcome]++;
      this.projector.record(c.item, c.resolved);
    }
    return this;
  }

  close(): ProjectedRun {
    const { running, run, counts } = this;
    running.spent = running.spent.plus(this.cost);
    running.projectedByDay.set(this.day, add(running.projectedByDay.get(this.day), this.cost));
    running.runCommitted.set(this.runKey, add(running.runCommitted.get(this.runKey), this.cost));
    running.countByDay.set(this.day, (running.countByDay.get(this.day) ?? 0) + counts.buy);
    const projected: ProjectedRun = {
      index: this.index,
      kind: run.kind,
      time: run.time,
      day: this.day,
      job: run.job,
      fireTime: run.fireTime,
      ...(run.error ? { error: run.error } : {}),
      candidates: counts.buy + counts.reject + counts.exists + counts.duplicate + counts.unknown,
      toBuy: counts.buy,
      rejected: counts.reject,
      existing: counts.exists,
      duplicates: counts.duplicate,
      unknown: counts.unknown,
      cost: this.cost,
      weighed: this.weighed,
      refusedBy: [...this.refusedBy],
    };
    this.projector.closed(projected);
    return projected;
  }

  private classify(
    row: SourceRow,
    existing: ReadonlySet<string>,
  ): { item: ProjectedItem; resolved?: Resolved } {
    const base: ProjectedItem = {
      request_key: row.request_key,
      source: row.source,
      job: row.job_name ?? null,
      phone: row.phone,
      network: row.network,
      plan: row.plan_id ?? null,
      amount: null,
      outcome: "buy",
      run: this.index,
      ported: row.ported ?? false,
    };
    if (this.run.kind !== "queued" && existing.has(row.request_key))
      return { item: { ...base, outcome: "exists", code: "exists", reason: EXISTS } };
    if (!this.running.seen.add(row.request_key))
      return { item: { ...base, outcome: "duplicate", code: "duplicate", reason: DUPLICATE } };
    const r = resolveRow(row, this.inputs.catalogue);
    if (r.outcome !== "buy") return { item: { ...base, outcome: r.outcome, code: r.code, reason: r.reason } };
    const { network, plan, amount, phone } = r.resolved;
    return {
      item: {
        ...base,
        network: network.name,
        plan: `${plan.id} ${plan.name}`,
        amount,
        phone,
        resolved: r.resolved,
      },
      resolved: r.resolved,
    };
  }
}

/**
 * The request keys seen, as 53-bit hashes (two FNV-1a halves) in an open-addressing table of doubles: a million
 * keys in 16 MB instead of a hundred. A collision (about 1 in 10^4 at a million keys) would show one candidate as
 * a duplicate in a forecast; the ledger itself decides duplicates by the exact key.
 */
class KeySet {
  private slots = new Float64Array(1024);
  private size = 0;

  /** Adds a key; false when it was there already. */
  add(key: string): boolean {
    if ((this.size + 1) * 2 > this.slots.length) this.grow();
    const added = insert(this.slots, keyHash(key) || 1);
    if (added) this.size++;
    return added;
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Float64Array(old.length * 2);
    for (const hash of old) if (hash !== 0) insert(this.slots, hash);
  }
}

/** Linear probing from the hash's low bits; 0 marks an empty slot. */
function insert(slots: Float64Array, hash: number): boolean {
  const mask = slots.length - 1;
  for (let i = hash % slots.length; ; i = (i + 1) & mask) {
    if (slots[i] === 0) {
      slots[i] = hash;
      return true;
    }
    if (slots[i] === hash) return false;
  }
}

function keyHash(key: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x9e3779b9;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193 + 2);
  }
  return (a >>> 0) * 2 ** 21 + ((b >>> 0) >>> 11);
}

function add(a: Money | undefined, b: Money | undefined): Money {
  return (a ?? ZERO).plus(b ?? ZERO);
}

function dayLines(inputs: ProjectorInputs, running: Running): DayLine[] {
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

function walletLine(inputs: ProjectorInputs, running: Running): WalletLine {
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
