// `apply` of a purchase plan: exactly its items, or nothing. The plan must be the ledger's (same digest), in time,
// approved by enough distinct approvers whose signatures the config's keys verify; each item is checked against the
// live catalogue, the ledger and the budgets (stale.ts); then the items are queued under their own request keys,
// covered by the plan and capped at their planned prices, and bought by the executor's claim like any run.
// Applying again buys nothing twice: bought keys are done, and an apply cut short resumes where it stopped.
import { sql } from "drizzle-orm";
import { systemClock } from "../clock.js";
import type { Executor } from "../db/client.js";
import { formatMoney, parseMoney } from "../money.js";
import { loadCatalogue } from "../purchases/catalogue-cache.js";
import type { Feed, PurchaseDeps, RunOptions, RunSummary } from "../purchases/executor.js";
import { budgetDay } from "../purchases/guards.js";
import { sweepDeadSubmitting } from "../purchases/ledger.js";
import {
  adoptIntoPlan,
  insertPlanRows,
  type PlanRow,
  planRowStates,
  releaseHeld,
  rowsByKey,
} from "../purchases/plan-rows.js";
import { guardLimits } from "../purchases/projection.js";
import { readReservedAhead } from "../purchases/reservations.js";
import { HEARTBEAT_GRACE_MS, HEARTBEAT_MS } from "../purchases/run-liveness.js";
import { executeAndRecord } from "../purchases/run-once.js";
import { readGuardStart } from "../purchases/wallet.js";
import { admitPlan } from "./approval-state.js";
import type { PurchaseItem, PurchasePlan } from "./document.js";
import { planDigest } from "./document.js";
import { expireOpenPlans } from "./expire.js";
import { fileHeaderProblems, findPlan, markApplied, markApplying, type SavedPlanRow } from "./registry.js";
import { checkPurchaseItems, FOR_NOW, type StaleItem } from "./stale.js";

export type StaleMode = "refuse" | "drop";

export interface ApplyOptions {
  stale: StaleMode;
  /** The plan file as read, when applied from a file (its items must hash to the ledger's digest). */
  file?: PurchasePlan;
  onProgress?: RunOptions["onProgress"];
  signal?: AbortSignal;
}

export type ApplyResult =
  | {
      kind: "applied";
      plan: SavedPlanRow;
      summary: RunSummary;
      /** Items bought, sent or settled by an earlier apply of this plan (not bought again). */
      done: number;
      /** Items this apply queued for the run. */
      queued: number;
      /** Stale items left out (`--stale drop`). */
      dropped: StaleItem[];
      /**
       * Items left for the next apply because they cannot be bought now but may be later, as they are (`FOR_NOW`: the
       * catalogue could not be read to price them, or today's budget or the wallet floor is short): never dropped,
       * so the plan is not finished while there are any.
       */
      later: StaleItem[];
      /** The plan's purchases still being sent (submitting) when this apply's run ended: another run's, in flight. */
      inFlight: number;
      /**
       * True when the plan is now applied. False when some item is still queued (a retry later than the run waits)
       * or could not be priced — apply again to finish — or when the plan expired while it was being applied.
       */
      finished: boolean;
    }
  | { kind: "already_applied"; plan: SavedPlanRow; at: Date }
  | { kind: "refused"; plan?: SavedPlanRow; reasons: string[]; stale: StaleItem[] };

const BATCH = 1000;
/** The first batch is small, and each next one twice the last: buying starts as soon as the first rows are in. */
const FIRST_BATCH = 125;

function refused(reasons: string[], plan?: SavedPlanRow, stale: StaleItem[] = []): ApplyResult {
  return { kind: "refused", plan, reasons, stale };
}

/**
 * Advisory lock space (the first key of the two-key form) of plan applies: the second key is the plan id's hash. One
 * apply of a plan at a time; applies of different plans do not wait for each other.
 */
const PLAN_APPLY_LOCK_SPACE = 7264;

/**
 * Applies the plan holding its apply lock for the whole apply. Another apply of the same plan running meanwhile (its
 * purchases in flight) is refused at once: it buys nothing and changes nothing, and says so, rather than finding the
 * first one's rows sent and calling the plan applied. The lock is a transaction's, so it ends with the apply or with
 * its process (an apply killed is resumed by the next). PGlite has one process (its folder lock refuses a second).
 */
export async function applyPurchasePlan(
  deps: PurchaseDeps,
  planId: string,
  options: ApplyOptions,
): Promise<ApplyResult> {
  const database = deps.database;
  if (database.kind === "pglite") return applyHolding(deps, planId, options);
  let applying: Promise<ApplyResult> | undefined;
  const held = database.transaction(async (tx) => {
    const [lock] = await tx.all<{ got: boolean }>(
      sql`select pg_try_advisory_xact_lock(${PLAN_APPLY_LOCK_SPACE}::int, hashtext(${planId})) as got`,
    );
    if (!lock?.got) return;
    applying = applyHolding(deps, planId, options);
    await applying; // the transaction, and so the lock, lasts as long as the apply
  });
  try {
    await held;
  } catch (error) {
    if (!applying) throw error;
    // The lock's session ended under the apply (a database blip, an idle-transaction timeout): the apply goes on to
    // its end, and what it did is reported (a failure of its own is thrown here); only the lock was lost.
    const result = await applying;
    deps.logger.warn(
      { plan: planId },
      `plan ${planId}: the session holding its apply lock ended before the apply did (${(error as Error).message}); the apply's result stands`,
    );
    return result;
  }
  if (applying) return applying;
  return refused([
    `another apply of plan ${planId} is in progress (it holds the plan, its purchases in flight); nothing was bought by this apply: apply again once that one has finished, to see the plan applied or finish what it left`,
  ]);
}

async function applyHolding(deps: PurchaseDeps, planId: string, options: ApplyOptions): Promise<ApplyResult> {
  const db = deps.database.db;
  const actor = deps.actor ?? `apply:${process.pid}`;
  const clock = deps.clock ?? systemClock;
  const now = new Date(clock.now());
  // The catalogue is read while the ledger is checked, and the run's connections open meanwhile.
  const cataloguing = loadCatalogue(deps.reseller, deps.logger);
  cataloguing.catch(() => undefined);
  deps.database.warm();
  await expireOpenPlans(db, now, actor);
  // With a file, its items are the plan's once its digest is the recorded one: the recorded items are read only
  // to name what differs.
  const row = await findPlan(db, planId, options.file);
  if (!row) return refused([`this ledger never recorded plan ${planId}: nothing was bought`]);
  if (row.kind !== "purchases" || row.document.kind !== "purchases")
    return refused([`plan ${planId} is a ${row.kind} plan`], row);
  if (options.file) {
    const problems = await fileProblems(db, options.file, row);
    if (problems.length > 0) return refused(problems, row);
  }
  const admission = await admitPlan(db, row, deps.config.approvals, options.file?.approvals, now);
  if (admission.kind === "already_applied") return { kind: "already_applied", plan: row, at: admission.at };
  if (admission.kind === "refused") return refused([admission.reason], row);

  const catalogue = await cataloguing;
  // Rows a run of this plan left in submitting when it was killed are in doubt, never bought again.
  const { waiting } = await sweepDeadSubmitting(deps.database, actor);
  const items = row.document.items;
  const today = budgetDay(now, deps.config.timezone);
  const [existing, start, ahead] = await Promise.all([
    rowsByKey(
      db,
      items.map((i) => i.request_key),
    ),
    readGuardStart(db, [today]),
    readReservedAhead(db, now, planId),
  ]);
  const check = checkPurchaseItems({
    planId,
    items,
    catalogue,
    existing,
    limits: guardLimits(deps.config.budget),
    committedToday: (start.committedByDay.get(today) ?? parseMoney("0")).plus(ahead),
    ledger: start,
  });
  if (check.stale.length > 0 && options.stale === "refuse")
    return refused(
      [
        `${check.stale.length} of ${items.length} items are stale; nothing was bought (--stale drop buys the rest)`,
      ],
      row,
      check.stale,
    );
  if (!(await markApplying(db, planId))) {
    const again = await findPlan(db, planId);
    return refused([`plan ${planId} is ${again?.status ?? "gone"}; nothing was bought`], again);
  }

  const feed = new ItemFeed();
  const writing = queueItems(deps, planId, check.toBuy, actor, feed);
  writing.catch(() => undefined);
  await feed.first;
  let summary: RunSummary;
  try {
    summary = await executeAndRecord(
      { ...deps, actor },
      { savedPlan: planId, catalogue, feed, onProgress: options.onProgress, signal: options.signal },
    );
  } finally {
    await feed.done;
  }
  const queued = await writing;
  if (waiting > 0) {
    await clock.sleep(HEARTBEAT_GRACE_MS + HEARTBEAT_MS);
    await sweepDeadSubmitting(deps.database, actor);
  }
  // The plan may have run out of time while it was being applied: what it left unsent is cancelled, and it is
  // expired, not applied.
  await expireOpenPlans(db, new Date(clock.now()), actor);
  const states = await planRowStates(db, planId);
  const later = check.stale.filter((s) => FOR_NOW.has(s.code));
  // Rows still in submitting once this apply's run has ended are another run's (a daemon's, releasing the approved
  // plan), its calls in flight: the plan is not applied until they are answered.
  const inFlight = states.get("submitting") ?? 0;
  const complete =
    (states.get("queued") ?? 0) + (states.get("held") ?? 0) === 0 &&
    inFlight === 0 &&
    summary.stoppedBy === undefined &&
    later.length === 0;
  if (complete) await markApplied(db, planId, new Date(clock.now()));
  // The record as it stands now (the run's gate may have applied a held plan already, an expiry may have ended it);
  // its document is the one already in hand (a large value, not read again).
  const current = (await findPlan(db, planId, row.document)) ?? row;
  return {
    kind: "applied",
    plan: current,
    summary,
    done: check.done.length,
    queued,
    dropped: check.stale.filter((s) => !FOR_NOW.has(s.code)),
    later,
    inFlight,
    finished: complete && current.status === "applied",
  };
}

/** Queues the items in batches (the run starts buying after the first): new keys, free queued rows, held rows. */
async function queueItems(
  deps: PurchaseDeps,
  planId: string,
  toBuy: ReadonlyArray<{
    item: PurchaseItem;
    existing?: { id: number; state: string; approval: string | null };
  }>,
  actor: string,
  feed: ItemFeed,
): Promise<number> {
  const db = deps.database.db;
  const attempts = deps.config.reseller.retry.max_attempts;
  let count = 0;
  try {
    for (let i = 0, size = FIRST_BATCH; i < toBuy.length; i += size, size = Math.min(BATCH, 2 * size)) {
      const batch = toBuy.slice(i, i + size);
      const fresh: PlanRow[] = [];
      const free: Array<{ id: number; request_key: string; price: string; plan_id: string }> = [];
      const held: Array<{ request_key: string; price: string }> = [];
      for (const { item, existing } of batch) {
        const cap = { request_key: item.request_key, price: item.price };
        if (!existing) fresh.push(planRow(item, attempts));
        else if (existing.state === "held") held.push(cap);
        else if (existing.approval === null || existing.approval.startsWith("run:"))
          free.push({ id: existing.id, ...cap, plan_id: item.plan_id });
      }
      count += await insertPlanRows(db, planId, fresh, actor);
      count += await adoptIntoPlan(db, planId, free, actor);
      count += await releaseHeld(db, planId, held, {
        actor,
        reason: `released by the apply of approved plan ${planId}, at most its planned price`,
      });
      count += batch.length - fresh.length - free.length - held.length;
      feed.rows();
    }
    return count;
  } finally {
    feed.end();
  }
}

function planRow(item: PurchaseItem, attempts: number): PlanRow {
  return {
    request_key: item.request_key,
    source: item.source,
    job_name: item.job,
    fire_time: item.fire_time,
    network: item.network_id,
    plan_id: item.plan_id,
    phone: item.phone,
    ported: item.ported,
    price: item.price,
    max_attempts: attempts,
  };
}

/**
 * What makes a file not the ledger's plan, item by item: a digest that is not the recorded one (items added,
 * removed or changed), or a total that is not the recorded one.
 */
async function fileProblems(db: Executor, file: PurchasePlan, row: SavedPlanRow): Promise<string[]> {
  const digest = planDigest(file);
  const problems: string[] = [];
  if (digest !== row.digest) {
    const recorded = (await findPlan(db, row.id))?.document;
    if (recorded?.kind !== "purchases") return [`plan ${row.id} is not a purchase plan`];
    problems.push(
      `the file's items do not match the digest the ledger recorded for plan ${row.id} (${digest} is not ${row.digest}); nothing was bought`,
    );
    const theirs = new Map(recorded.items.map((i) => [i.request_key, i]));
    const mine = new Set<string>();
    for (const item of file.items) {
      mine.add(item.request_key);
      const was = theirs.get(item.request_key);
      if (!was) problems.push(`item ${item.request_key}: not in the plan the ledger recorded`);
      else
        for (const key of Object.keys(was) as Array<keyof PurchaseItem>)
          if (was[key] !== item[key])
            problems.push(
              `item ${item.request_key}: ${key} is ${String(item[key])}, the ledger recorded ${String(was[key])}`,
            );
    }
    for (const key of theirs.keys()) if (!mine.has(key)) problems.push(`item ${key}: missing from the file`);
  }
  if (file.total !== row.total)
    problems.push(`the file's total ${file.total} is not the recorded ${formatMoney(parseMoney(row.total))}`);
  problems.push(...fileHeaderProblems(file, row));
  return problems;
}

/** The rows an apply is still queueing while its purchases run (the executor's Feed). */
class ItemFeed implements Feed {
  private readonly listeners: Array<() => void> = [];
  private ended!: () => void;
  private started!: () => void;
  readonly done = new Promise<void>((resolve) => {
    this.ended = resolve;
  });
  readonly first = new Promise<void>((resolve) => {
    this.started = resolve;
  });

  onRows(listener: () => void): void {
    this.listeners.push(listener);
  }

  rows(): void {
    this.started();
    for (const listener of this.listeners) listener();
  }

  end(): void {
    this.started();
    this.ended();
  }
}
