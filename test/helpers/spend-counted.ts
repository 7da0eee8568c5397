// What `report` says counted from the purchases themselves (what it read before the ledger had rollups), and the
// checks that the report read from the rollups says the same.
import { type SQL, sql } from "drizzle-orm";
import { expect } from "vitest";
import { type Executor, rows } from "../../src/db/client.js";
import { parseMoney } from "../../src/money.js";
import { readSpendHistory, type SpendRows } from "../../src/purchases/history-read.js";

/** The report of the period since `since` in `timeZone`, read as `report` reads it, is the ledger's count. */
export async function expectReportEqualsTheLedger(
  db: Executor,
  since: Date,
  timeZone: string,
): Promise<void> {
  const why = `${timeZone} since ${since.toISOString()}`;
  const kept = await readSpendHistory(db, since, timeZone);
  const counted = await spendHistoryCounted(db, since, timeZone);
  expect(normal(kept), why).toEqual(normal(counted));
  expect(kept.latency.n, why).toBe(counted.latency.n);
  for (const q of ["p50", "p95"] as const)
    expect(Math.abs((kept.latency[q] ?? 0) - (counted.latency[q] ?? 0)), why).toBeLessThanOrEqual(
      (counted.latency[q] ?? 0) * 0.01,
    );
}

/**
 * The report's narrower rollups of the sealed days that did not change since (and the latency months whose days
 * all are such) are the sums of purchase_rollups and purchase_latency_rollups they are said to be.
 */
export async function expectSectionRollupsEqualTheirSums(db: Executor): Promise<void> {
  const sealed = (
    column: SQL,
  ) => sql`${column} < (select (value ->> 'sealed_until')::timestamptz from kv where key = 'rollups')
    and topsync_utc_day(${column}) not in (select day from purchase_rollup_dirty)`;
  const same = async (kept: SQL, summed: SQL) => {
    const [a, b] = [await rows(db, kept), await rows(db, summed)];
    expect(a).toEqual(b);
  };
  await same(
    sql`select bucket, state, budget_day, purchases::int as n, amount::numeric(20, 2)::text as amount,
          refunded::numeric(20, 2)::text as refunded
        from purchase_day_rollups where ${sealed(sql`bucket`)} order by 1, 2, 3`,
    sql`select bucket, state, budget_day, sum(purchases)::int as n, sum(amount)::numeric(20, 2)::text as amount,
          sum(refunded)::numeric(20, 2)::text as refunded
        from purchase_rollups where ${sealed(sql`bucket`)} group by 1, 2, 3 order by 1, 2, 3`,
  );
  await same(
    sql`select day, state, network_id, network, job, purchases::int as n, amount::numeric(20, 2)::text as amount
        from purchase_group_rollups where ${sealed(sql`day`)} order by 1, 2, 3, 4, 5`,
    sql`select topsync_utc_day(bucket) as day, state, network_id, network, job, sum(purchases)::int as n,
          sum(amount)::numeric(20, 2)::text as amount
        from purchase_rollups
        where ${sealed(sql`bucket`)} and state in ('submitting', 'submitted', 'succeeded', 'failed', 'in_doubt', 'unverified')
        group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5`,
  );
  await same(
    sql`select day, message, purchases::int as n, amount::numeric(20, 2)::text as amount,
          refunded::numeric(20, 2)::text as refunded
        from purchase_failure_rollups where ${sealed(sql`day`)} order by 1, 2`,
    sql`select topsync_utc_day(bucket) as day, message, sum(purchases)::int as n,
          sum(amount)::numeric(20, 2)::text as amount, sum(refunded)::numeric(20, 2)::text as refunded
        from purchase_rollups where ${sealed(sql`bucket`)} and state = 'failed' group by 1, 2 order by 1, 2`,
  );
  const wholeMonths = sql`(select m from (select distinct topsync_utc_month(bucket) as m from purchase_latency_rollups) months
    where not exists (select 1 from purchase_rollup_dirty d where topsync_utc_month(d.day) = m)
      and (date_trunc('month', m at time zone 'UTC') + interval '1 month') at time zone 'UTC'
        <= (select (value ->> 'sealed_until')::timestamptz from kv where key = 'rollups'))`;
  await same(
    sql`select month, latency_bucket, purchases::int as n, micros::text as micros
        from purchase_latency_month_rollups where month in ${wholeMonths} order by 1, 2`,
    sql`select topsync_utc_month(bucket) as month, latency_bucket, sum(purchases)::int as n, sum(micros)::text as micros
        from purchase_latency_rollups where topsync_utc_month(bucket) in ${wholeMonths} group by 1, 2 order by 1, 2`,
  );
}

/** The report's aggregates but the latency, with every amount to two places. */
function normal(spend: SpendRows) {
  const amounts = (row: object) =>
    Object.fromEntries(
      Object.entries(row).map(([k, v]) => [
        k,
        typeof v === "string" && /^-?\d+(\.\d+)?$/.test(v) ? parseMoney(v).toFixed(2) : v,
      ]),
    );
  return {
    states: spend.states.map(amounts),
    days: spend.days.map(amounts),
    networks: spend.networks.map(amounts),
    jobs: spend.jobs.map(amounts),
    failures: spend.failures.map(amounts),
  };
}

/** The report's aggregates counted from the purchases themselves: what `report` read before migration 0006. */
export async function spendHistoryCounted(db: Executor, since: Date, timeZone: string) {
  const period = sql`coalesce(submitted_at, created_at) >= ${since.toISOString()}::timestamptz`;
  const SENT = sql`state in ('submitting', 'submitted', 'succeeded', 'failed', 'in_doubt', 'unverified')`;
  const group = sql`count(*)::int as sent, count(*) filter (where state = 'succeeded')::int as succeeded,
    coalesce(sum(coalesce(charged_amount, amount)) filter (where state = 'succeeded'), 0)::text as spent,
    coalesce(sum(coalesce(charged_amount, amount)) filter (where state in ('submitting', 'submitted', 'unverified', 'in_doubt')), 0)::text as unsettled`;
  const groupBy = (key: SQL, name: SQL) =>
    rows(
      db,
      sql`select ${key} as key, ${name} as name, ${group}, count(*) filter (where state = 'failed')::int as failed
          from purchases where ${period} and ${SENT} group by 1 order by 1`,
    );
  const seconds = sql`extract(epoch from (settled_at - submitted_at))::float8`;
  const [latency] = await rows<{ n: number; p50: number | null; p95: number | null }>(
    db,
    sql`select count(*)::int as n,
          (percentile_cont(0.5) within group (order by ${seconds}) * 1000)::float8 as p50,
          (percentile_cont(0.95) within group (order by ${seconds}) * 1000)::float8 as p95
        from purchases where ${period} and state in ('succeeded', 'failed')
          and submitted_at is not null and settled_at is not null and settled_at >= submitted_at`,
  );
  return {
    anyPurchases: true,
    states: await rows(
      db,
      sql`select state, count(*)::int as n, coalesce(sum(coalesce(charged_amount, amount)), 0)::text as amount
          from purchases where ${period} group by state order by state`,
    ),
    days: await rows(
      db,
      sql`select coalesce(to_char(budget_day, 'YYYY-MM-DD'),
                   to_char(coalesce(submitted_at, created_at) at time zone ${timeZone}, 'YYYY-MM-DD')) as day,
            ${group}, count(*) filter (where state = 'failed')::int as failed,
            coalesce(sum(coalesce(charged_amount, amount)) filter (where state = 'failed'), 0)::text as failed_amount,
            coalesce(sum(refund_amount) filter (where state = 'failed'), 0)::text as refunded
          from purchases where ${period} and ${SENT} group by 1 order by 1`,
    ),
    networks: await groupBy(
      sql`coalesce(network_id, upper(network))`,
      sql`mode() within group (order by upper(network))`,
    ),
    jobs: await groupBy(
      sql`coalesce(job_name, '(' || source || ')')`,
      sql`min(coalesce(job_name, '(' || source || ')'))`,
    ),
    latency: { n: latency?.n ?? 0, p50: latency?.p50 ?? null, p95: latency?.p95 ?? null },
    open: [],
    failures: await rows(
      db,
      sql`select topsync_failure_message(provider_message, reason) as message, count(*)::int as n,
            coalesce(sum(coalesce(charged_amount, amount)), 0)::text as amount, coalesce(sum(refund_amount), 0)::text as refunded
          from purchases where ${period} and state = 'failed' group by 1 order by 2 desc, 1`,
    ),
  } as SpendRows;
}
