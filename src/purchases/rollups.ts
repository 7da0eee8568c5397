// Keeps the report's rollups small (migration 0006, schema.ts): while a day is current, every database session that
// writes purchases adds to a row of its own (its shard), so writers rarely wait on each other; once the day is past,
// its rows are folded here into one row per key, in shard -1, which no writer writes. The daemon folds every hour,
// `purchases run` and `purchases prune` before they finish; a report reads the same totals either way.
import { sql } from "drizzle-orm";
import { type Executor, rows } from "../db/client.js";

const DAY_MS = 86_400_000;
/** Days whose rows are folded: those before yesterday (UTC), which few writes still touch. */
export function foldCutoff(now: Date): Date {
  return new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS - DAY_MS);
}

/**
 * Folds the writers' rows of the rollups' past days into one row per key. Rows are locked in key order, the order
 * every writer locks them in (topsync_count_purchases), so a late writer (a person resolving last month's in_doubt
 * purchase) waits for the fold and never deadlocks with it; its row for that day is then new, and folded next time.
 * Returns how many rows were folded away.
 */
export async function foldLedgerCounters(db: Executor, now: Date): Promise<number> {
  const cutoff = foldCutoff(now).toISOString();
  const [rollups] = await rows<{ folded: number; buckets: string | null }>(
    db,
    sql`with doomed as materialized (
          select bucket, state, dims, shard from purchase_rollups where bucket < ${cutoff}::timestamptz and shard >= 0
          order by bucket, state, dims, shard for update
        ), gone as (
          delete from purchase_rollups r using doomed d
          where r.bucket = d.bucket and r.state = d.state and r.dims = d.dims and r.shard = d.shard
          returning r.*
        ), folded as (
          insert into purchase_rollups as r (bucket, state, dims, shard, budget_day, network_id, network, job, message,
            purchases, amount, refunded)
          select bucket, state, dims, -1, budget_day, network_id, network, job, message,
            sum(purchases), sum(amount), sum(refunded)
          from gone group by bucket, state, dims, budget_day, network_id, network, job, message
          order by bucket, state, dims
          on conflict (bucket, state, dims, shard) do update set purchases = r.purchases + excluded.purchases,
            amount = r.amount + excluded.amount, refunded = r.refunded + excluded.refunded
          returning bucket
        )
        select (select count(*) from gone)::int as folded,
          (select string_agg(distinct to_char(bucket at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), ',') from folded)
            as buckets`,
  );
  const [latency] = await rows<{ folded: number; buckets: string | null }>(
    db,
    sql`with doomed as materialized (
          select bucket, latency_bucket, shard from purchase_latency_rollups
          where bucket < ${cutoff}::timestamptz and shard >= 0
          order by bucket, latency_bucket, shard for update
        ), gone as (
          delete from purchase_latency_rollups l using doomed d
          where l.bucket = d.bucket and l.latency_bucket = d.latency_bucket and l.shard = d.shard
          returning l.*
        ), folded as (
          insert into purchase_latency_rollups as l (bucket, latency_bucket, shard, purchases, micros)
          select bucket, latency_bucket, -1, sum(purchases), sum(micros) from gone
          group by bucket, latency_bucket order by bucket, latency_bucket
          on conflict (bucket, latency_bucket, shard) do update set purchases = l.purchases + excluded.purchases,
            micros = l.micros + excluded.micros
          returning bucket
        )
        select (select count(*) from gone)::int as folded,
          (select string_agg(distinct to_char(bucket at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), ',') from folded)
            as buckets`,
  );
  // Keys whose purchases have all moved on (today's `submitting`, say) fold to zero: nothing to keep.
  const buckets = `{${[rollups?.buckets, latency?.buckets].filter(Boolean).join(",")}}`;
  if (buckets !== "{}") {
    await rows(
      db,
      sql`delete from purchase_rollups where shard = -1 and bucket = any(${buckets}::timestamptz[])
          and purchases = 0 and amount = 0 and refunded = 0`,
    );
    await rows(
      db,
      sql`delete from purchase_latency_rollups where shard = -1 and bucket = any(${buckets}::timestamptz[])
          and purchases = 0 and micros = 0`,
    );
  }
  return (rollups?.folded ?? 0) + (latency?.folded ?? 0);
}
