// The claim: in one transaction, take due purchases (FOR UPDATE SKIP LOCKED), resolve them against the
// live catalogue, apply the budget and wallet guards under lock, and move each to `submitting` or
// `rejected`. Committed before any purchase POST is sent, so no replica can spend the same money twice.
import { and, asc, eq, lte, sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { rows } from "../db/client.js";
import { budgetDays, kv, purchases } from "../db/schema.js";
import { type Money, parseMoney, ZERO } from "../money.js";
import { applyGuards, budgetDay, type GuardLimits } from "./guards.js";
import type { PurchaseRow } from "./ledger.js";
import { json } from "./ledger.js";
import { type Catalogue, type PlanSelector, type Resolved, resolvePurchase } from "./resolve.js";

export interface ClaimOptions {
  limit: number;
  now: Date;
  runId: string;
  actor: string;
  jobName?: string;
  requestKey?: string;
  catalogue: Catalogue;
  limits: GuardLimits;
  runCommitted: Money;
  timeZone: string;
  /** Budget days this run already created rows for (saves a statement per claim). */
  ensuredDays?: Set<string>;
  /** Dry-run: decide, then roll back. */
  dryRun?: boolean;
}

export interface Claimed {
  row: PurchaseRow;
  resolved: Resolved;
}

export interface ClaimResult {
  toSend: Claimed[];
  rejected: Array<{ row: PurchaseRow; code: string; reason: string }>;
  committed: Money;
}

const WALLET_KEY = "wallet";
const CATALOGUE_RETRY_MS = 60_000;

class DryRunRollback extends Error {
  constructor(readonly result: ClaimResult) {
    super("dry run");
  }
}

export async function claimAndSubmit(db: Db, options: ClaimOptions): Promise<ClaimResult> {
  try {
    return await db.transaction(async (tx) => {
      const result = await claimInTransaction(tx as unknown as Db, options);
      if (options.dryRun) throw new DryRunRollback(result);
      return result;
    });
  } catch (error) {
    if (error instanceof DryRunRollback) return error.result;
    throw error;
  }
}

async function claimInTransaction(tx: Db, options: ClaimOptions): Promise<ClaimResult> {
  const due = await tx
    .select()
    .from(purchases)
    .where(
      and(
        eq(purchases.state, "queued"),
        lte(purchases.not_before, options.now),
        options.jobName ? eq(purchases.job_name, options.jobName) : undefined,
        options.requestKey ? eq(purchases.request_key, options.requestKey) : undefined,
      ),
    )
    .orderBy(asc(purchases.not_before), asc(purchases.id))
    .limit(options.limit)
    .for("update", { skipLocked: true });
  const result: ClaimResult = { toSend: [], rejected: [], committed: ZERO };
  if (due.length === 0) return result;

  const resolutions = due.map((row) => ({
    row,
    resolution: resolvePurchase(toRequest(row), options.catalogue),
  }));
  const waiting = resolutions.filter(
    (r) => !r.resolution.ok && r.resolution.code === "catalogue_unavailable",
  );
  const resolved = resolutions.filter(
    (r): r is { row: PurchaseRow; resolution: Resolved } => r.resolution.ok,
  );
  for (const r of resolutions) {
    if (!r.resolution.ok && r.resolution.code !== "catalogue_unavailable") {
      result.rejected.push({ row: r.row, code: r.resolution.code, reason: r.resolution.reason });
    }
  }

  const day = budgetDay(options.now, options.timeZone);
  if (resolved.length > 0) {
    const state = await lockGuardState(tx, day, options.ensuredDays);
    const decisions = applyGuards(
      resolved.map((r) => r.resolution.amount),
      options.limits,
      { ...state, runCommitted: options.runCommitted },
    );
    resolved.forEach((r, i) => {
      const decision = decisions[i]!;
      if (decision.ok) result.toSend.push({ row: r.row, resolved: r.resolution });
      else result.rejected.push({ row: r.row, code: decision.code, reason: decision.reason });
    });
    for (const c of result.toSend) result.committed = result.committed.plus(c.resolved.amount);
  }

  await writeSubmitting(tx, result.toSend, day, options);
  await writeRejected(tx, result.rejected, options.actor);
  if (waiting.length > 0) {
    const later = new Date(options.now.getTime() + CATALOGUE_RETRY_MS);
    const ids = waiting.map((w) => w.row.id);
    await tx.execute(
      sql`update purchases set not_before = ${later.toISOString()} where id in (${sql.join(
        ids.map((id) => sql`${id}`),
        sql`, `,
      )})`,
    );
  }
  return result;
}

/** Locks today's budget row and the wallet row: every claimer across replicas passes here one at a time. */
async function lockGuardState(tx: Db, day: string, ensured: Set<string> | undefined) {
  if (!ensured?.has(day)) {
    await tx.execute(sql`
      with b as (insert into budget_days (day, committed) values (${day}, 0) on conflict do nothing)
      insert into kv (key, value) values (${WALLET_KEY}, '{"balance": null}'::jsonb) on conflict do nothing`);
    ensured?.add(day);
  }
  return readGuardState(tx, day, true);
}

/**
 * What the guards start from, in one statement: committed today, the last balance the reseller reported,
 * and every amount that balance cannot include yet — purchases in flight, and those accepted after it.
 */
export async function readGuardState(db: Db, day: string, lock = false) {
  const [state] = await rows<{
    committed: string | null;
    wallet: { balance: string | null; as_of?: string } | null;
    in_flight: string;
  }>(
    db,
    sql`select b.committed::text as committed, k.value as wallet,
          (select coalesce(sum(amount), 0)::text from purchases
            where state = 'submitting'
               or (state in ('submitted', 'succeeded', 'unverified', 'in_doubt')
                   and submitted_at > coalesce((k.value->>'as_of')::timestamptz, 'infinity'))) as in_flight
        ${
          lock
            ? sql`from budget_days b, kv k where b.day = ${day} and k.key = ${WALLET_KEY} for update of b, k`
            : sql`from (select 1) one left join budget_days b on b.day = ${day} left join kv k on k.key = ${WALLET_KEY}`
        }`,
  );
  const balance = state?.wallet?.balance;
  return {
    dailyCommitted: parseMoney(state?.committed ?? "0"),
    walletBalance: balance ? parseMoney(balance) : undefined,
    inFlight: parseMoney(state?.in_flight ?? "0"),
  };
}

async function writeSubmitting(tx: Db, toSend: Claimed[], day: string, options: ClaimOptions): Promise<void> {
  if (toSend.length === 0) return;
  const values = toSend.map(
    ({ row, resolved }) =>
      sql`(${row.id}::bigint, ${resolved.network.id}, ${resolved.plan.id}, ${resolved.plan.name}, ${resolved.phone}, ${resolved.amount.toFixed(2)}::numeric)`,
  );
  await tx.execute(sql`
    with v (id, network_id, plan_id, plan_name, phone, amount) as (values ${sql.join(values, sql`, `)}),
    moved as (
      update purchases p set state = 'submitting', network_id = v.network_id, plan_id = v.plan_id, plan_name = v.plan_name,
        phone = v.phone, amount = v.amount, budget_day = ${day}::date, run_id = ${options.runId},
        attempts = p.attempts + 1, reason = null, updated_at = now()
      from v where p.id = v.id and p.state = 'queued'
      returning p.id, p.attempts, p.amount
    ), budget as (
      update budget_days set committed = committed + (select sum(amount) from moved) where day = ${day}::date
    )
    insert into purchase_events (purchase_id, actor, from_state, to_state, reason)
    select id, ${options.actor}, 'queued', 'submitting', 'attempt ' || attempts from moved`);
}

async function writeRejected(tx: Db, rejected: ClaimResult["rejected"], actor: string): Promise<void> {
  if (rejected.length === 0) return;
  const values = rejected.map(({ row, code, reason }) => sql`(${row.id}::bigint, ${`${code}: ${reason}`})`);
  await tx.execute(sql`
    with v (id, reason) as (values ${sql.join(values, sql`, `)}),
    moved as (
      update purchases p set state = 'rejected', reason = v.reason, settled_at = now(), updated_at = now()
      from v where p.id = v.id and p.state = 'queued'
      returning p.id, p.reason
    )
    insert into purchase_events (purchase_id, actor, from_state, to_state, reason, response)
    select id, ${actor}, 'queued', 'rejected', reason, ${json(null)}::jsonb from moved`);
}

function toRequest(row: PurchaseRow) {
  return {
    network: row.network,
    plan_id: row.plan_id,
    plan_selector: row.plan_selector as PlanSelector | null,
    phone: row.phone,
    ported: row.ported,
    max_price: row.max_price ? parseMoney(row.max_price) : null,
  };
}

/** Records the wallet balance a purchase answer reported at `asOf`, for the wallet floor guard. */
export async function recordWalletBalance(db: Db, balance: Money, asOf: Date): Promise<void> {
  const value = JSON.stringify({ balance: balance.toFixed(2), as_of: asOf.toISOString() });
  await db.execute(
    sql`insert into kv (key, value, updated_at) values (${WALLET_KEY}, ${value}::jsonb, now())
        on conflict (key) do update set value = excluded.value, updated_at = now()
        where coalesce((kv.value->>'as_of')::timestamptz, '-infinity') < ${asOf.toISOString()}::timestamptz`,
  );
}
