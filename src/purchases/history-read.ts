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
  /** Over a rollup table whose `column` is a UTC day (or a minute of one): the sealed days read from there. */
  sealed: (column: SQL) => SQL;
  /** Over purchase_latency_month_rollups: the months of the period whose every day is sealed and unchanged since. */
  months: SQL;
  /** Over purchase_latency_rollups: the sealed days outside those months. */
  sealedOutsideMonths: SQL;
  /** Over `purchases p`: the rest, as ranges an index finds. */
  unsealed: SQL;
}

/**
 * Splits the period so each purchase is read once: the whole UTC days from the first midnight after `since` (`edge`)
 * to the end of the sealed days, but those changed since they were sealed, from the rollups (src/purchases/rollups.ts);
 * the period's first partial day, the days not sealed yet (today, and yesterday in the first hour of a day) and the
 * changed ones from the purchases, filed through the same SQL function (`topsync_purchase_fact`), so both halves
 * agree. Latencies of sealed days are read per month where a whole month is sealed and unchanged, else per day. A
 * year is a few dozen rollup rows a day, a few hundred a month, and under a day of purchases at either end, not the
 * year's purchases.
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
  const sealed = (column: SQL) =>
    sealedUntil > edge
      ? sql`${column} >= ${iso(edge)}::timestamptz and ${column} < ${iso(sealedUntil)}::timestamptz
          and topsync_utc_day(${column}) <> all(${instants(dirty)})`
      : sql`false`;
  const months = wholeMonths(edge, sealedUntil, dirty);
  const outsideMonths = sql.join(
    spansBetween(edge, sealedUntil, months).map(([from, to]) => sql`(${between(sql`bucket`, from, to)})`),
    sql` or `,
  );
  return {
    sealed,
    months: sql`month = any(${instants(months)})`,
    sealedOutsideMonths:
      months.length === 0
        ? sealed(sql`bucket`)
        : sql`(${outsideMonths}) and topsync_utc_day(bucket) <> all(${instants(dirty)})`,
    unsealed: sql`(${unsealed})`,
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** [from, until) without the `months` (ascending starts of UTC months inside it), as [from, to) spans. */
function spansBetween(from: number, until: number, months: number[]): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  let at = from;
  for (const start of months) {
    const date = new Date(start);
    if (start > at) spans.push([at, start]);
    at = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
  }
  if (until > at) spans.push([at, until]);
  return spans;
}

/** A list of instants as one timestamptz[] parameter. */
function instants(list: number[]): SQL {
  return sql`${`{${list.map(iso).join(",")}}`}::timestamptz[]`;
}

/** The starts of the UTC calendar months inside [from, until) that hold none of the `dirty` days. */
function wholeMonths(from: number, until: number, dirty: number[]): number[] {
  const months: number[] = [];
  if (!Number.isFinite(until) || until <= from) return months;
  const first = new Date(from);
  for (let month = first.getUTCMonth(), year = first.getUTCFullYear(); ; month++) {
    const start = Date.UTC(year, month, 1);
    const end = Date.UTC(year, month + 1, 1);
    if (end > until) return months;
    if (start >= from && !dirty.some((day) => day >= start && day < end)) months.push(start);
  }
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
  const [[anything], [totals], open] = await Promise.all([
    rows<{ purchases: boolean }>(db, sql`select exists(select 1 from purchases) as purchases`),
    rows<
      Record<"states" | "days" | "networks" | "jobs" | "failures", unknown> & {
        latency_n: number | string | null;
        p50: number | string | null;
        p95: number | string | null;
      }
    >(
      db,
      sql`with ${recentPurchases(parts)}, ${sections(parts, timeZone)}, ${latencyBuckets(parts)}, ${PERCENTILES}
        select
          (select coalesce(json_agg(s order by s.state), '[]') from (
            select state, sum(n)::int as n, sum(amount)::text as amount from by_day group by state
          ) s)::text as states,
          (select coalesce(json_agg(d order by d.day), '[]') from (
            select day, ${groupColumns}, ${failedColumns}, ${sumIf(sql`state = 'failed'`, sql`amount`)} as failed_amount,
              ${sumIf(sql`state = 'failed'`, sql`refunded`)} as refunded
            from by_day where ${SENT} group by day
          ) d)::text as days,
          (select coalesce(json_agg(g order by g.key), '[]') from (
            select key, (array_agg(network order by asked desc, network))[1] as name, sum(sent)::int as sent,
              sum(succeeded)::int as succeeded, sum(failed)::int as failed, sum(spent::numeric)::text as spent,
              sum(unsettled::numeric)::text as unsettled
            from (
              select coalesce(nullif(network_id, ''), network) as key, network, sum(n) as asked, ${groupColumns},
                ${failedColumns}
              from by_group group by 1, 2
            ) by_asked group by key
          ) g)::text as networks,
          (select coalesce(json_agg(g order by g.key), '[]') from (
            select job as key, job as name, ${groupColumns}, ${failedColumns} from by_group group by job
          ) g)::text as jobs,
          (select coalesce(json_agg(f order by f.n desc, f.message), '[]') from (
            select message, n::int as n, amount::text as amount, refunded::text as refunded from by_message
          ) f)::text as failures,
          (select n from latency_total)::int as latency_n,
          (select ms from latency_answer where q = 0.5) as p50,
          (select ms from latency_answer where q = 0.95) as p95`,
    ),
    rows<SpendRows["open"][number]>(
      db,
      sql`select id, state, job_name, source, phone, network, plan_id, plan_name,
            coalesce(charged_amount, amount)::text as amount, reference, note,
            coalesce(submitted_at, updated_at) as since, ${CANDIDATE_NOTIFICATIONS} as unmatched_notifications
          from purchases p where state in ('in_doubt', 'unverified') or ((note like 'price_mismatch%' or note like 'reversed:%'
              or note like 'delivered_after_failure:%' or note like 'earlier_attempt_delivered:%') and ${period})
            or note like 'reference_clash%'
          order by id`,
    ),
  ]);
  const parsed = <T>(value: unknown): T => (typeof value === "string" ? JSON.parse(value) : value) as T;
  const number = (v: number | string | null | undefined) =>
    v === null || v === undefined ? null : Number(v);
  return {
    anyPurchases: anything?.purchases === true,
    states: parsed(totals?.states),
    days: parsed(totals?.days),
    networks: parsed(totals?.networks),
    jobs: parsed(totals?.jobs),
    latency: { n: number(totals?.latency_n) ?? 0, p50: number(totals?.p50), p95: number(totals?.p95) },
    open,
    failures: parsed(totals?.failures),
  };
}

/**
 * The purchases not read from the rollups, filed once (`filed`) and summed two ways: `recent` per what the rollups
 * are keyed by, `recent_latency` per latency bucket.
 */
function recentPurchases(parts: PeriodParts): SQL {
  return sql`filed as materialized (
    select f.bucket, f.state, f.budget_day, f.network_id, f.network, f.job, f.message, f.amount, f.refunded,
      f.latency_micros
    from purchases p cross join lateral topsync_purchase_fact(p) f
    where ${parts.unsealed}
  ), recent as materialized (
    select bucket, state, budget_day, network_id, network, job, message, count(*) as purchases, sum(amount) as amount,
      sum(refunded) as refunded
    from filed group by 1, 2, 3, 4, 5, 6, 7
  ), recent_latency as (
    select topsync_latency_bucket(latency_micros) as latency_bucket, count(*) as purchases,
      sum(latency_micros) as micros
    from filed where latency_micros is not null group by 1
  )`;
}

/**
 * The report's sections, each summed from the narrowest rollup that answers it and the recent purchases:
 * `by_day` (state and day: the states and days sections), `by_group` (sent purchases by state, network and job) and
 * `by_message` (failed purchases by message).
 */
function sections(parts: PeriodParts, timeZone: string): SQL {
  return sql`by_day as (
    select state, ${dayOf(timeZone)} as day, sum(purchases) as n, sum(amount) as amount, sum(refunded) as refunded
    from (
      select bucket, state, budget_day, purchases, amount, refunded
      from purchase_day_rollups where ${parts.sealed(sql`bucket`)}
      union all
      select bucket, state, budget_day, purchases, amount, refunded from recent
    ) parts
    group by 1, 2
  ), by_group as (
    select state, network_id, network, job, sum(purchases) as n, sum(amount) as amount from (
      select state, network_id, network, job, purchases, amount
      from purchase_group_rollups where ${parts.sealed(sql`day`)}
      union all
      select state, network_id, network, job, purchases, amount from recent where ${SENT}
    ) parts
    group by 1, 2, 3, 4
  ), by_message as (
    select message, sum(purchases) as n, sum(amount) as amount, sum(refunded) as refunded from (
      select message, purchases, amount, refunded from purchase_failure_rollups where ${parts.sealed(sql`day`)}
      union all
      select message, purchases, amount, refunded from recent where state = 'failed'
    ) parts
    group by message
  )`;
}

/** `latency_buckets`: how many latencies of the period, and their exact sum, per 1% wide latency bucket. */
function latencyBuckets(parts: PeriodParts): SQL {
  return sql`latency_buckets as (
    select latency_bucket, sum(purchases) as n, sum(micros) as micros from (
      select latency_bucket, purchases, micros from purchase_latency_month_rollups where ${parts.months}
      union all
      select latency_bucket, purchases, micros from purchase_latency_rollups where ${parts.sealedOutsideMonths}
      union all
      select latency_bucket, purchases, micros from recent_latency
    ) parts group by latency_bucket having sum(purchases) <> 0
  )`;
}

/**
 * p50 and p95 of submitted → settled over the purchases of the period that settled, in milliseconds, as
 * percentile_cont computes them over the latencies: in buckets 1% wide (`latency_buckets`), each latency taken as
 * the mean of its bucket (whose exact sum is kept). Exact when a bucket holds one latency (or equal ones); otherwise
 * within its 1%.
 */
const PERCENTILES = sql`latency_ranked as (
    select n, micros / n / 1000.0 as ms, sum(n) over (order by latency_bucket) - n as below from latency_buckets
  ), latency_total as (
    select sum(n) as n from latency_buckets
  ), latency_wanted as (
    select q, q * (latency_total.n - 1) as pos from latency_total, (values (0.5), (0.95)) as v(q)
    where latency_total.n > 0
  ), latency_answer as (
    select w.q, (lo.ms + (w.pos - floor(w.pos)) * (hi.ms - lo.ms))::float8 as ms
    from latency_wanted w
    join latency_ranked lo on floor(w.pos) >= lo.below and floor(w.pos) < lo.below + lo.n
    join latency_ranked hi on ceil(w.pos) >= hi.below and ceil(w.pos) < hi.below + hi.n
  )`;

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
