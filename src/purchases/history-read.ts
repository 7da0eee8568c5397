// The purchases' history for a report, aggregated in SQL so a big ledger never comes into memory: SELECTs only.
// A purchase belongs to the period by when it was submitted (or created, if it never was); amounts are what the
// provider charged where it said.
import { type SQL, sql } from "drizzle-orm";
import { type Executor, rows } from "../db/client.js";
import { type RollupState, readRollupState } from "./rollups.js";

/** The purchases' history for a report, as read: amounts still decimal strings, times as the driver gave. */
export interface SpendRows {
  anyPurchases: boolean;
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
    /** Unmatched provider notifications that could be this purchase (in_doubt only). */
    unmatched_notifications: number;
  }>;
  failures: Array<{ message: string; n: number; amount: string; refunded: string }>;
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

/**
 * Unmatched provider notifications that could be an in_doubt purchase (same amount, the same last three digits
 * of the phone, which masked numbers still show): evidence for the person who settles it, never proof.
 */
const CANDIDATE_NOTIFICATIONS = sql`(case when p.state = 'in_doubt' then (
    select count(*)::int from provider_notifications n
    where n.outcome = 'unmatched' and n.amount = coalesce(p.charged_amount, p.amount)
      and right(regexp_replace(coalesce(n.phone, ''), '[^0-9]', '', 'g'), 3) = right(p.phone, 3)
  ) else 0 end)`;

const SENT = sql`state in ('submitting', 'submitted', 'succeeded', 'failed', 'in_doubt', 'unverified')`;
const DAY_MS = 86_400_000;

/** Which purchases of the period a report reads from the rollups, and which from the purchases themselves. */
interface PeriodParts {
  /** Over purchase_rollups (or purchase_latency_rollups): the sealed days read from there. */
  sealed: SQL;
  /** Over `purchases p`: the rest, as ranges an index finds. */
  unsealed: SQL;
}

/**
 * Splits the period so each purchase is read once: the whole UTC days from the first midnight after `since` (`edge`)
 * to the end of the sealed days, but those changed since they were sealed, from the rollups (src/purchases/rollups.ts);
 * the period's first partial day, the days not sealed yet (the last two) and the changed ones from the purchases,
 * filed through the same SQL function (`topsync_purchase_fact`), so both halves agree. A year is a few hundred rollup
 * rows a day and two days of purchases, not the year's purchases.
 */
function periodParts(since: Date, state: RollupState): PeriodParts {
  const edge = Math.ceil(since.getTime() / DAY_MS) * DAY_MS;
  const sealedUntil = state.sealedUntil?.getTime() ?? Number.NEGATIVE_INFINITY;
  const dirty = state.dirty.map((day) => day.getTime()).filter((day) => day >= edge && day < sealedUntil);
  const ranges: Array<[number, number | null]> = [];
  const add = (from: number, to: number | null) => {
    const last = ranges[ranges.length - 1];
    if (last && last[1] === from) last[1] = to;
    else ranges.push([from, to]);
  };
  add(since.getTime(), edge);
  for (const day of dirty) add(day, day + DAY_MS);
  add(Math.max(edge, sealedUntil), null);
  const iso = (ms: number) => new Date(ms).toISOString();
  const between = (column: SQL, from: number, to: number | null) =>
    to === null
      ? sql`${column} >= ${iso(from)}::timestamptz`
      : sql`${column} >= ${iso(from)}::timestamptz and ${column} < ${iso(to)}::timestamptz`;
  const unsealed = sql.join(
    ranges.map(
      ([from, to]) =>
        sql`(${between(sql`p.submitted_at`, from, to)} or (p.submitted_at is null and ${between(sql`p.created_at`, from, to)}))`,
    ),
    sql` or `,
  );
  const sealed =
    sealedUntil > edge
      ? sql`bucket >= ${iso(edge)}::timestamptz and bucket < ${iso(sealedUntil)}::timestamptz
          and topsync_utc_day(bucket) <> all(${`{${dirty.map(iso).join(",")}}`}::timestamptz[])`
      : sql`false`;
  return { sealed, unsealed: sql`(${unsealed})` };
}

/**
 * The period's parts as the rollups stand now. A day a write changes while the report reads would be read as it was
 * sealed: the rollups' state is read again after, and the report read again when it changed (a seal or a change to
 * a sealed day in between), so a report is always one consistent reading.
 */
async function readConsistently<T>(
  db: Executor,
  since: Date,
  read: (parts: PeriodParts) => Promise<T>,
): Promise<T> {
  let state = await readRollupState(db);
  for (let attempt = 0; ; attempt++) {
    const result = await read(periodParts(since, state));
    const after = await readRollupState(db);
    if (attempt >= 2 || sameState(state, after)) return result;
    state = after;
  }
}

function sameState(a: RollupState, b: RollupState): boolean {
  const key = (s: RollupState) => `${s.sealedUntil?.getTime()}|${s.dirty.map((d) => d.getTime()).join(",")}`;
  return key(a) === key(b);
}

export function readSpendHistory(db: Executor, since: Date, timeZone: string): Promise<SpendRows> {
  return readConsistently(db, since, (parts) => readSpend(db, since, timeZone, parts));
}

async function readSpend(
  db: Executor,
  since: Date,
  timeZone: string,
  parts: PeriodParts,
): Promise<SpendRows> {
  const period = sql`coalesce(submitted_at, created_at) >= ${since.toISOString()}::timestamptz`;
  const [anything] = await rows<{ purchases: boolean }>(
    db,
    sql`select exists(select 1 from purchases) as purchases`,
  );
  const [totals] = await rows<Record<"states" | "days" | "networks" | "jobs" | "failures", unknown>>(
    db,
    sql`with facts as materialized (
          select state, day, network_id, network, job, message,
            sum(purchases) as n, sum(amount) as amount, sum(refunded) as refunded
          from (
            select state, ${dayOf(timeZone)} as day, network_id, network, job, message, purchases, amount, refunded
            from (
              select bucket, state, budget_day, network_id, network, job, message, purchases, amount, refunded
              from purchase_rollups where ${parts.sealed}
              union all
              select f.bucket, f.state, f.budget_day, f.network_id, f.network, f.job, f.message, 1, f.amount, f.refunded
              from purchases p cross join lateral topsync_purchase_fact(p) f where ${parts.unsealed}
            ) parts
          ) filed
          group by state, day, network_id, network, job, message
          having sum(purchases) <> 0
        ), sent as (
          select * from facts where ${SENT}
        )
        select
          (select coalesce(json_agg(s order by s.state), '[]') from (
            select state, sum(n)::int as n, sum(amount)::text as amount from facts group by state
          ) s)::text as states,
          (select coalesce(json_agg(d order by d.day), '[]') from (
            select day, ${groupColumns}, ${failedColumns}, ${sumIf(sql`state = 'failed'`, sql`amount`)} as failed_amount,
              ${sumIf(sql`state = 'failed'`, sql`refunded`)} as refunded
            from sent group by day
          ) d)::text as days,
          (select coalesce(json_agg(g order by g.key), '[]') from (
            select key, (array_agg(network order by asked desc, network))[1] as name, sum(sent)::int as sent,
              sum(succeeded)::int as succeeded, sum(failed)::int as failed, sum(spent::numeric)::text as spent,
              sum(unsettled::numeric)::text as unsettled
            from (
              select coalesce(nullif(network_id, ''), network) as key, network, sum(n) as asked, ${groupColumns},
                ${failedColumns}
              from sent group by 1, 2
            ) by_asked group by key
          ) g)::text as networks,
          (select coalesce(json_agg(g order by g.key), '[]') from (
            select job as key, job as name, ${groupColumns}, ${failedColumns} from sent group by job
          ) g)::text as jobs,
          (select coalesce(json_agg(f order by f.n desc, f.message), '[]') from (
            select message, sum(n)::int as n, sum(amount)::text as amount, sum(refunded)::text as refunded
            from facts where state = 'failed' group by message
          ) f)::text as failures`,
  );
  const parsed = <T>(value: unknown): T => (typeof value === "string" ? JSON.parse(value) : value) as T;
  return {
    anyPurchases: anything?.purchases === true,
    states: parsed(totals?.states),
    days: parsed(totals?.days),
    networks: parsed(totals?.networks),
    jobs: parsed(totals?.jobs),
    latency: await latency(db, parts),
    open: await rows(
      db,
      sql`select id, state, job_name, source, phone, network, plan_id, plan_name,
            coalesce(charged_amount, amount)::text as amount, reference, note,
            coalesce(submitted_at, updated_at) as since, ${CANDIDATE_NOTIFICATIONS} as unmatched_notifications
          from purchases p where state in ('in_doubt', 'unverified') or (note like 'price_mismatch%' and ${period})
            or note like 'reference_clash%'
          order by id`,
    ),
    failures: parsed(totals?.failures),
  };
}

/** The budget day of a filed purchase, or else the day in `timeZone` of the minute it is filed under. */
function dayOf(timeZone: string): SQL {
  return sql`coalesce(nullif(budget_day, ''), to_char(bucket at time zone ${timeZone}, 'YYYY-MM-DD'))`;
}

/** The sum of `value` over the facts where `condition` holds, as exact decimal text. */
function sumIf(condition: SQL, value: SQL): SQL {
  return sql`coalesce(sum(${value}) filter (where ${condition}), 0)::text`;
}

const groupColumns = sql`sum(n)::int as sent, coalesce(sum(n) filter (where state = 'succeeded'), 0)::int as succeeded,
  ${sumIf(sql`state = 'succeeded'`, sql`amount`)} as spent,
  ${sumIf(sql`state in ('submitting', 'submitted', 'unverified', 'in_doubt')`, sql`amount`)} as unsettled`;
const failedColumns = sql`coalesce(sum(n) filter (where state = 'failed'), 0)::int as failed`;

/**
 * p50 and p95 of submitted → settled over the purchases of the period that settled, in milliseconds, as
 * percentile_cont computes them over the latencies: in buckets 1% wide (the histograms of sealed days, and the
 * other days' purchases), each latency taken as the mean of its bucket (whose exact sum is kept). Exact when a
 * bucket holds one latency (or equal ones); otherwise within its 1%.
 */
async function latency(db: Executor, parts: PeriodParts): Promise<SpendRows["latency"]> {
  const [row] = await rows<{
    n: number | string | null;
    p50: number | string | null;
    p95: number | string | null;
  }>(
    db,
    sql`with buckets as (
          select latency_bucket, sum(purchases) as n, sum(micros) as micros from (
            select latency_bucket, purchases, micros from purchase_latency_rollups where ${parts.sealed}
            union all
            select topsync_latency_bucket(f.latency_micros), 1, f.latency_micros
            from purchases p cross join lateral topsync_purchase_fact(p) f
            where ${parts.unsealed} and f.latency_micros is not null
          ) parts group by latency_bucket having sum(purchases) <> 0
        ), ranked as (
          select n, micros / n / 1000.0 as ms, sum(n) over (order by latency_bucket) - n as below from buckets
        ), total as (
          select sum(n) as n from buckets
        ), wanted as (
          select q, q * (total.n - 1) as pos from total, (values (0.5), (0.95)) as v(q) where total.n > 0
        ), answer as (
          select w.q, (lo.ms + (w.pos - floor(w.pos)) * (hi.ms - lo.ms))::float8 as ms
          from wanted w
          join ranked lo on floor(w.pos) >= lo.below and floor(w.pos) < lo.below + lo.n
          join ranked hi on ceil(w.pos) >= hi.below and ceil(w.pos) < hi.below + hi.n
        )
        select (select n from total)::int as n, (select ms from answer where q = 0.5) as p50,
          (select ms from answer where q = 0.95) as p95`,
  );
  const number = (v: number | string | null | undefined) =>
    v === null || v === undefined ? null : Number(v);
  return { n: number(row?.n) ?? 0, p50: number(row?.p50), p95: number(row?.p95) };
}
