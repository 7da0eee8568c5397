// The claim: take due purchases, resolve them against the live catalogue, apply the budget and wallet guards
// under lock, and move each to `submitting` or `rejected` — committed before any purchase POST is sent, so no
// replica can spend the same money twice. Due rows are read without locks (`readDue`), resolved in JS, and
// then taken by one statement (`claim`) that locks them with SKIP LOCKED, checks each is still the row
// version that was read, and decides and writes everything: one round trip per batch, no open transaction.
import { type SQL, sql } from "drizzle-orm";
import type { Database, Executor, Queryable } from "../db/client.js";
import { rows } from "../db/client.js";
import { type Money, ZERO } from "../money.js";
import { budgetNotices } from "../notify/outbox/write.js";
import { budgetDay, type GuardLimits } from "./guards.js";
import { idArray } from "./ledger.js";
import { resolveRow } from "./projection.js";
import {
  type DueFilter,
  type QueuedRow,
  readQueued,
  stoppedJobsFilter,
  unendedPlan,
} from "./projection-read.js";
import { reservedAheadSql } from "./reservations.js";
import type { Catalogue, Resolved } from "./resolve.js";
import { UNREFLECTED, WALLET_KEY } from "./wallet.js";

export type { DueFilter } from "./projection-read.js";

export interface ClaimOptions {
  now: Date;
  runId: string;
  actor: string;
  limits: GuardLimits;
  runCommitted: Money;
  timeZone: string;
  /** Budget days this run already created rows for (saves a statement per claim). */
  ensuredDays?: Set<string>;
  /** The saved plan this run applies: plans approved before it keep their reservations, its own does not count. */
  savedPlan?: string;
  /** Percentages of the daily limit whose crossing writes a `budget` notification (notifications.budget_thresholds). */
  budgetThresholds?: readonly number[];
  /** A job whose rows are taken whatever its state (`purchases run --job J --force`); others' must be active. */
  forceJob?: string;
  /** Jobs whose purchases the wallet floor leaves queued (their job pauses) instead of rejecting them. */
  holdOnFloor?: (job: string | null) => boolean;
}

export interface Claimed {
  row: ClaimedRow;
  resolved: Resolved;
}

export interface ClaimResult {
  toSend: Claimed[];
  rejected: Array<{ row: ClaimedRow; code: string; reason: string }>;
  /** Candidates another claimer holds or changed since they were read, or whose job is not active: not taken. */
  lost: Candidate[];
  /** Left queued at the wallet floor: their job pauses (pause_on.below_wallet_floor). */
  held: Array<{ row: ClaimedRow; reason: string }>;
  committed: Money;
}

const CATALOGUE_RETRY_MS = 60_000;

/** The columns of a due row that deciding and sending need. */
export type ClaimedRow = Pick<
  QueuedRow,
  | "id"
  | "network"
  | "plan_id"
  | "plan_selector"
  | "phone"
  | "ported"
  | "max_price"
  | "attempts"
  | "max_attempts"
  | "job_name"
>;

/** A due row as read, with its row version (xmin): the claim takes it only if it is still that version. */
export type DueRow = QueuedRow;

/** What the claim will do with a due row, decided from the catalogue before any lock is taken. */
export type Candidate = { row: DueRow } & (
  | { action: "submit"; resolved: Resolved }
  | { action: "reject"; reason: string }
  | { action: "wait" }
);

/** Due purchases in claim order, read without locking (the projection's own read); `exclude` are ids this run holds. */
export function readDue(
  db: Executor,
  filter: DueFilter,
  limit: number,
  exclude: readonly number[] = [],
): Promise<DueRow[]> {
  return readQueued(db, filter, { limit, exclude });
}

/** Resolves due rows as the projection does (`resolveRow`): what each claim would do if the guards allow it. */
export function toCandidates(due: readonly DueRow[], catalogue: Catalogue): Candidate[] {
  return due.map((row) => {
    const resolution = resolveRow(row, catalogue);
    if (resolution.outcome === "buy") return { row, action: "submit", resolved: resolution.resolved };
    if (resolution.outcome === "unknown") return { row, action: "wait" };
    return { row, action: "reject", reason: `${resolution.code}: ${resolution.reason}` };
  });
}

/** Reads, resolves and claims up to `limit` due purchases in one go (the executor keeps a window instead). */
export async function claimAndSubmit(
  database: Database,
  options: ClaimOptions & DueFilter & { limit: number; catalogue: Catalogue },
): Promise<ClaimResult> {
  const due = await readDue(database, options, options.limit);
  return claim(database, toCandidates(due, options.catalogue), options);
}

/**
 * The budget day of `now` and the rows a claim locks (the day's budget row, the wallet row), created if missing:
 * the claim's statement cannot lock a row it would create itself. Once per day per run (`ensured`); a run does
 * it for today as it starts, so its first claim does not wait for it.
 */
export async function ensureBudgetDay(
  db: Queryable,
  now: Date,
  timeZone: string,
  ensured?: Set<string>,
): Promise<string> {
  const day = budgetDay(now, timeZone);
  if (ensured?.has(day)) return day;
  await rows(
    db,
    sql`with b as (insert into budget_days (day, committed) values (${day}, 0) on conflict do nothing)
        insert into kv (key, value) values (${WALLET_KEY}, '{"balance": null}'::jsonb) on conflict do nothing`,
  );
  ensured?.add(day);
  return day;
}

/** Takes the candidates still queued and unchanged, decides the guards and writes every decision. */
export async function claim(
  db: Queryable,
  candidates: Candidate[],
  options: ClaimOptions,
): Promise<ClaimResult> {
  const result: ClaimResult = { toSend: [], rejected: [], lost: [], held: [], committed: ZERO };
  if (candidates.length === 0) return result;
  const day = await ensureBudgetDay(db, options.now, options.timeZone, options.ensuredDays);
  const outcomes = await decideAndWrite(db, candidates, day, options);
  for (const candidate of candidates) {
    const outcome = outcomes.get(candidate.row.id);
    if (!outcome) {
      result.lost.push(candidate);
    } else if (outcome.action === "submit" && candidate.action === "submit") {
      result.toSend.push({ row: candidate.row, resolved: candidate.resolved });
      result.committed = result.committed.plus(candidate.resolved.amount);
    } else if (outcome.action === "hold") {
      result.held.push({ row: candidate.row, reason: outcome.reason ?? "wallet_floor" });
    } else if (outcome.action === "reject") {
      const [code, ...rest] = (outcome.reason ?? "rejected: ").split(": ");
      result.rejected.push({ row: candidate.row, code: code!, reason: rest.join(": ") });
    }
  }
  return result;
}

/**
 * One statement takes the candidates and writes every decision. It locks each candidate (SKIP LOCKED: a row
 * another claimer holds is left to it) and keeps those still queued at the version that was read; it locks
 * today's budget row and the wallet row (every claimer across replicas passes here one at a time, for the
 * length of this one statement) and applies the guards in claim order exactly as `applyGuards` does (a
 * recursive walk that counts only the purchases it allows); it moves each taken row to `submitting`,
 * `rejected` or a later `not_before`, commits the budget, counts the claim on the wallet row and appends the
 * events. Returns each taken row's final action.
 *
 * In flight for the wallet floor: purchases in `submitting` or `in_doubt` and those accepted after the last reported balance
 * (read in this statement's snapshot), plus what claims committed after that snapshot moved to `submitting`
 * (the wallet row's running `claimed` total, locked, less the same total in the snapshot).
 */
async function decideAndWrite(
  db: Queryable,
  candidates: Candidate[],
  day: string,
  options: ClaimOptions,
): Promise<Map<number, { action: string; reason: string | null }>> {
  const payload = candidates.map((c, ord) => ({
    id: c.row.id,
    version: c.row.version,
    ord,
    action: c.action,
    attempt: c.row.attempts + 1,
    reason: c.action === "reject" ? c.reason : null,
    hold_floor: options.holdOnFloor?.(c.row.job_name ?? null) === true,
    ...(c.action === "submit"
      ? {
          network_id: c.resolved.network.id,
          plan_id: c.resolved.plan.id,
          plan_name: c.resolved.plan.name,
          phone: c.resolved.phone,
          amount: c.resolved.amount.toFixed(2),
        }
      : {}),
  }));
  const money = (value: Money | undefined) => (value === undefined ? null : value.toFixed(2));
  const dailyLimit = money(options.limits.dailyLimit);
  const runLimit = money(options.limits.perRunLimit);
  const floor = options.limits.minWalletBalance.toFixed(2);
  const later = new Date(options.now.getTime() + CATALOGUE_RETRY_MS).toISOString();
  const ids = idArray(candidates.map((c) => c.row.id));
  const moved = await db.all<{ id: string | number; action: string; reason: string | null }>(
    sql`with recursive v as (
          select * from json_to_recordset(${JSON.stringify(payload)}::json) as v(
            id bigint, version text, ord integer, action text, attempt integer, reason text, hold_floor boolean, network_id text,
            plan_id text, plan_name text, phone text, amount numeric(14,2))
        ), locked as materialized (
          select p.id, p.state, p.job_name, p.approval, p.xmin::text as version from purchases p
          where p.id = any(${ids}::bigint[]) for update skip locked
        ), taken as (
          select v.* from v join locked l on l.id = v.id and l.version = v.version where l.state = 'queued'
            ${stoppedJobsFilter(sql`l.job_name`, options.forceJob)}
            and ${unendedPlan(sql`l.approval`, options.now)}
        ), g as (
          select (b.committed + ${reservedAheadSql(options.now, options.savedPlan)})::numeric(14,2) as committed, (k.value->>'balance')::numeric(14,2) as balance,
            (${UNREFLECTED}
             + coalesce((k.value->>'claimed')::numeric, 0)
             - (select coalesce((s.value->>'claimed')::numeric, 0) from kv s where s.key = ${WALLET_KEY})
            )::numeric(14,2) as in_flight
          from budget_days b, kv k where b.day = ${day}::date and k.key = ${WALLET_KEY} for update of b, k
        ), cand as (
          select row_number() over (order by ord) as n, t.id, t.amount from taken t where t.action = 'submit'
        ), walk (n, id, refusal, daily, run, spent) as (
          select 0::bigint, null::bigint, null::text, g.committed, ${options.runCommitted.toFixed(2)}::numeric(14,2),
            0::numeric(14,2) from g
          union all
          select c.n, c.id, d.refusal,
            (case when d.refusal is null then w.daily + c.amount else w.daily end)::numeric(14,2),
            (case when d.refusal is null then w.run + c.amount else w.run end)::numeric(14,2),
            (case when d.refusal is null then w.spent + c.amount else w.spent end)::numeric(14,2)
          from walk w join cand c on c.n = w.n + 1 cross join g
          cross join lateral (select case
            when ${dailyLimit}::numeric(14,2) is not null and w.daily + c.amount > ${dailyLimit}::numeric(14,2) then
              'daily_budget: daily budget: ' || w.daily || ' committed today + ' || c.amount
                || ' > daily_limit ' || ${dailyLimit}::numeric(14,2)
            when ${runLimit}::numeric(14,2) is not null and w.run + c.amount > ${runLimit}::numeric(14,2) then
              'run_budget: per-run budget: ' || w.run || ' this run + ' || c.amount
                || ' > per_run_limit ' || ${runLimit}::numeric(14,2)
            when g.balance is not null and g.balance - g.in_flight - w.spent - c.amount < ${floor}::numeric(14,2) then
              'wallet_floor: wallet floor: balance ' || g.balance || ' less ' || (g.in_flight + w.spent)
                || ' in flight less ' || c.amount || ' would be ' || (g.balance - g.in_flight - w.spent - c.amount)
                || ', below min_wallet_balance ' || ${floor}::numeric(14,2)
            end as refusal) d
        ), decided as (
          select t.*, case when t.action = 'submit' and w.refusal is not null then
              case when t.hold_floor and w.refusal like 'wallet_floor:%' then 'hold' else 'reject' end
            else t.action end as final,
            coalesce(w.refusal, t.reason) as final_reason
          from taken t left join walk w on w.id = t.id
        ), moved as (
          update purchases p set
            state = case f.final when 'submit' then 'submitting' when 'reject' then 'rejected' else p.state end,
            network_id = coalesce(f.network_id, p.network_id), plan_id = coalesce(f.plan_id, p.plan_id),
            plan_name = coalesce(f.plan_name, p.plan_name), phone = coalesce(f.phone, p.phone),
            amount = case f.final when 'submit' then f.amount else p.amount end,
            budget_day = case f.final when 'submit' then ${day}::date else p.budget_day end,
            run_id = case f.final when 'submit' then ${options.runId} else p.run_id end,
            attempts = case f.final when 'submit' then f.attempt else p.attempts end,
            reason = case f.final when 'reject' then f.final_reason else null end,
            settled_at = case f.final when 'reject' then now() else p.settled_at end,
            not_before = case f.final when 'wait' then ${later}::timestamptz else p.not_before end,
            updated_at = now()
          from decided f
          where p.id = f.id and p.id = any(${ids}::bigint[]) and f.final <> 'hold'
          returning p.id, p.amount, p.state, f.final as action, f.final_reason as reason, f.attempt
        ), spent as (
          select coalesce(sum(amount), 0) as amount from moved where action = 'submit'
        ), budget as (
          update budget_days set committed = committed + (select amount from spent) where day = ${day}::date
        )${thresholdNotices(day, dailyLimit, options.budgetThresholds)}, claimed as (
          update kv set value = jsonb_set(value, '{claimed}',
            to_jsonb(coalesce((value->>'claimed')::numeric, 0) + (select amount from spent)))
          where key = ${WALLET_KEY} and (select amount from spent) > 0
        ), event as (
          insert into purchase_events (purchase_id, actor, from_state, to_state, reason)
          select id, ${options.actor}, 'queued', state, case action when 'submit' then 'attempt ' || attempt else reason end
          from moved where action <> 'wait'
        )
        select id, action, reason from moved
        union all select id, final, final_reason from decided where final = 'hold'`,
  );
  return new Map(moved.map((m) => [Number(m.id), { action: m.action, reason: m.reason }]));
}

/** The claim's `budget` notifications: each threshold of the daily limit its spending crossed, once per day. */
function thresholdNotices(day: string, dailyLimit: string | null, thresholds: readonly number[] = []): SQL {
  if (dailyLimit === null || thresholds.length === 0) return sql``;
  return sql`, budget_notice as (${budgetNotices({
    day,
    limit: dailyLimit,
    thresholds,
    before: sql`(select committed from g)`,
    after: sql`(select committed from g) + (select amount from spent)`,
    refused: sql`exists (select 1 from decided where final = 'reject' and final_reason like 'daily_budget:%')`,
  })})`;
}
