// The claim: in one transaction, take due purchases (FOR UPDATE SKIP LOCKED), resolve them against the
// live catalogue, apply the budget and wallet guards under lock, and move each to `submitting` or
// `rejected`. Committed before any purchase POST is sent, so no replica can spend the same money twice.
import { sql } from "drizzle-orm";
import type { Database, Executor, Queryable } from "../db/client.js";
import { rows } from "../db/client.js";
import { type Money, parseMoney, ZERO } from "../money.js";
import { applyGuards, budgetDay, type GuardLimits } from "./guards.js";
import { idArray } from "./ledger.js";
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
}

export interface Claimed {
  row: ClaimedRow;
  resolved: Resolved;
}

export interface ClaimResult {
  toSend: Claimed[];
  rejected: Array<{ row: ClaimedRow; code: string; reason: string }>;
  committed: Money;
}

const WALLET_KEY = "wallet";
const CATALOGUE_RETRY_MS = 60_000;

/** The columns of a claimed row that deciding and sending need. */
export interface ClaimedRow {
  id: number;
  network: string;
  plan_id: string | null;
  plan_selector: unknown;
  phone: string;
  ported: boolean;
  max_price: string | null;
  attempts: number;
  max_attempts: number;
}

export async function claimAndSubmit(database: Database, options: ClaimOptions): Promise<ClaimResult> {
  return database.transaction((tx) => claimInTransaction(tx, options));
}

async function claimInTransaction(tx: Queryable, options: ClaimOptions): Promise<ClaimResult> {
  const day = budgetDay(options.now, options.timeZone);
  if (!options.ensuredDays?.has(day)) {
    await rows(
      tx,
      sql`with b as (insert into budget_days (day, committed) values (${day}, 0) on conflict do nothing)
          insert into kv (key, value) values (${WALLET_KEY}, '{"balance": null}'::jsonb) on conflict do nothing`,
    );
    options.ensuredDays?.add(day);
  }
  // One statement takes the due rows and locks today's budget row and the wallet row: every claimer
  // across replicas passes the guards one at a time.
  const [claim] = await rows<{ due: Array<ClaimedRow & { id: string | number }> } & GuardRow>(
    tx,
    sql`with due as (
          select id, network, plan_id, plan_selector, phone, ported, max_price::text as max_price, attempts, max_attempts
          from purchases
          where state = 'queued' and not_before <= ${options.now.toISOString()}::timestamptz
            ${options.jobName ? sql`and job_name = ${options.jobName}` : sql``}
            ${options.requestKey ? sql`and request_key = ${options.requestKey}` : sql``}
          order by not_before, id limit ${options.limit} for update skip locked
        ), guard as (${guardStatement(day, true)})
        select coalesce((select json_agg(due) from due), '[]'::json) as due, guard.* from guard`,
  );
  const due: ClaimedRow[] = (claim?.due ?? []).map((row) => ({ ...row, id: Number(row.id) }));
  const result: ClaimResult = { toSend: [], rejected: [], committed: ZERO };
  if (due.length === 0) return result;

  const resolutions = due.map((row) => ({
    row,
    resolution: resolvePurchase(toRequest(row), options.catalogue),
  }));
  const waiting = resolutions.filter(
    (r) => !r.resolution.ok && r.resolution.code === "catalogue_unavailable",
  );
  const resolved = resolutions.filter((r): r is { row: ClaimedRow; resolution: Resolved } => r.resolution.ok);
  for (const r of resolutions) {
    if (!r.resolution.ok && r.resolution.code !== "catalogue_unavailable") {
      result.rejected.push({ row: r.row, code: r.resolution.code, reason: r.resolution.reason });
    }
  }
  const decisions = applyGuards(
    resolved.map((r) => r.resolution.amount),
    options.limits,
    { ...guardState(claim!), runCommitted: options.runCommitted },
  );
  resolved.forEach((r, i) => {
    const decision = decisions[i]!;
    if (decision.ok) result.toSend.push({ row: r.row, resolved: r.resolution });
    else result.rejected.push({ row: r.row, code: decision.code, reason: decision.reason });
  });
  for (const c of result.toSend) result.committed = result.committed.plus(c.resolved.amount);
  await writeDecisions(
    tx,
    result,
    waiting.map((w) => w.row.id),
    day,
    options,
  );
  return result;
}

interface GuardRow {
  committed: string | null;
  wallet: { balance: string | null; as_of?: string } | null;
  in_flight: string;
}

/**
 * The guards' starting point: committed today, the last balance the reseller reported, and every amount
 * that balance cannot include yet — purchases in flight, and every purchase accepted after it (even one that failed
 * since: counting it too errs on the safe side).
 */
function guardStatement(day: string, lock: boolean) {
  return sql`select b.committed::text as committed, k.value as wallet,
      ((select coalesce(sum(amount), 0) from purchases where state = 'submitting')
       + (select coalesce(sum(amount), 0) from purchases
          where submitted_at > coalesce((k.value->>'as_of')::timestamptz, 'infinity')))::text as in_flight
    ${
      lock
        ? sql`from budget_days b, kv k where b.day = ${day} and k.key = ${WALLET_KEY} for update of b, k`
        : sql`from (select 1) one left join budget_days b on b.day = ${day} left join kv k on k.key = ${WALLET_KEY}`
    }`;
}

function guardState(row: GuardRow) {
  const balance = row.wallet?.balance;
  return {
    dailyCommitted: parseMoney(row.committed ?? "0"),
    walletBalance: balance ? parseMoney(balance) : undefined,
    inFlight: parseMoney(row.in_flight ?? "0"),
  };
}

/** Guard state without locking, for dry runs and reports. */
export async function readGuardState(db: Executor, day: string) {
  const [row] = await rows<GuardRow>(db, guardStatement(day, false));
  return guardState(row ?? { committed: null, wallet: null, in_flight: "0" });
}

/** Writes a claim's decisions in one statement: to `submitting` (committing the budget), to `rejected`, or later. */
async function writeDecisions(
  tx: Queryable,
  result: ClaimResult,
  waiting: number[],
  day: string,
  options: ClaimOptions,
): Promise<void> {
  const decisions = [
    ...result.toSend.map(({ row, resolved }) => ({
      id: row.id,
      action: "submit",
      network_id: resolved.network.id,
      plan_id: resolved.plan.id,
      plan_name: resolved.plan.name,
      phone: resolved.phone,
      amount: resolved.amount.toFixed(2),
      reason: `attempt ${row.attempts + 1}`,
    })),
    ...result.rejected.map(({ row, code, reason }) => ({
      id: row.id,
      action: "reject",
      reason: `${code}: ${reason}`,
    })),
    ...waiting.map((id) => ({ id, action: "wait", reason: null })),
  ];
  if (decisions.length === 0) return;
  const later = new Date(options.now.getTime() + CATALOGUE_RETRY_MS).toISOString();
  await rows(
    tx,
    sql`with v as (
          select * from jsonb_to_recordset(${JSON.stringify(decisions)}::jsonb) as v(
            id bigint, action text, network_id text, plan_id text, plan_name text, phone text, amount numeric, reason text)
        ), moved as (
          update purchases p set
            state = case v.action when 'submit' then 'submitting' when 'reject' then 'rejected' else p.state end,
            network_id = coalesce(v.network_id, p.network_id), plan_id = coalesce(v.plan_id, p.plan_id),
            plan_name = coalesce(v.plan_name, p.plan_name), phone = coalesce(v.phone, p.phone),
            amount = case v.action when 'submit' then v.amount else p.amount end,
            budget_day = case v.action when 'submit' then ${day}::date else p.budget_day end,
            run_id = case v.action when 'submit' then ${options.runId} else p.run_id end,
            attempts = p.attempts + case v.action when 'submit' then 1 else 0 end,
            reason = case v.action when 'reject' then v.reason else null end,
            settled_at = case v.action when 'reject' then now() else p.settled_at end,
            not_before = case v.action when 'wait' then ${later}::timestamptz else p.not_before end,
            updated_at = now()
          from v where p.id = v.id and p.id = any(${idArray(decisions.map((d) => d.id))}::bigint[]) and p.state = 'queued'
          returning p.id, p.state, p.amount, v.action, v.reason
        ), budget as (
          update budget_days set committed = committed + (select coalesce(sum(amount), 0) from moved where action = 'submit')
          where day = ${day}::date
        )
        insert into purchase_events (purchase_id, actor, from_state, to_state, reason)
        select id, ${options.actor}, 'queued', state, reason from moved where action <> 'wait'`,
  );
}

function toRequest(row: ClaimedRow) {
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
export async function recordWalletBalance(db: Executor, balance: Money, asOf: Date): Promise<void> {
  const value = JSON.stringify({ balance: balance.toFixed(2), as_of: asOf.toISOString() });
  await rows(
    db,
    sql`insert into kv (key, value, updated_at) values (${WALLET_KEY}, ${value}::jsonb, now())
        on conflict (key) do update set value = excluded.value, updated_at = now()
        where coalesce((kv.value->>'as_of')::timestamptz, '-infinity') < ${asOf.toISOString()}::timestamptz`,
  );
}
