// Keeps the report's rollups small (migration 0006, schema.ts): while a day is current, every database session that
// writes purchases adds to a row of its own (its shard), and every statement that settles purchases adds a row of
// latencies, so writers rarely wait on each other; once the day is past, its rows are folded here into one row per
// key (shard -1, which no writer writes) and its latencies into a histogram. The daemon folds every hour,
// `purchases run` and `purchases prune` before they finish; a report reads the same totals either way.
import { sql } from "drizzle-orm";
import { type Executor, rows } from "../db/client.js";

const DAY_MS = 86_400_000;
/** Days whose rows are folded: those before yesterday (UTC), which few writes still touch. */
export function foldCutoff(now: Date): Date {
  return new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS - DAY_MS);
}

/** The distinct buckets of `folded` as one comma-separated list of ISO instants (no spaces: an array literal). */
const bucketList = sql.raw(
  `string_agg(distinct to_char(bucket at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), ',')`,
);

/**
 * Folds the writers' rows of the rollups' past days into one row per key. Rows are locked in key order, the order
 * every writer locks them in (topsync_count_purchases), so a late writer (a person resolving last month's in_doubt
 * purchase) waits for the fold and never deadlocks with it; its row for that day is then new, and folded next time.
 * Latency rows are only ever inserted by writers: the fold takes those it sees. Returns how many rows it folded.
 */
export async function foldLedgerCounters(db: Executor, now: Date): Promise<number> {
  const cutoff = foldCutoff(now).toISOString();
  const [rollups] = await rows<{ folded: number; buckets: string | null }>(
    db,
    sql`with doomed as materialized (
          select bucket, state, budget_day, network_id, network, job, message_md5, shard from purchase_rollups
          where bucket < ${cutoff}::timestamptz and shard >= 0
          order by bucket, state, budget_day, network_id, network, job, message_md5, shard for update
        ), gone as (
          delete from purchase_rollups r using doomed d
          where (r.bucket, r.state, r.budget_day, r.network_id, r.network, r.job, r.message_md5, r.shard)
            = (d.bucket, d.state, d.budget_day, d.network_id, d.network, d.job, d.message_md5, d.shard)
          returning r.*
        ), folded as (
          insert into purchase_rollups as r (bucket, state, budget_day, network_id, network, job, message_md5, shard,
            message, purchases, amount, refunded)
          select bucket, state, budget_day, network_id, network, job, message_md5, -1, min(message),
            sum(purchases), sum(amount), sum(refunded)
          from gone group by bucket, state, budget_day, network_id, network, job, message_md5
          order by bucket, state, budget_day, network_id, network, job, message_md5
          on conflict (bucket, state, budget_day, network_id, network, job, message_md5, shard) do update
            set purchases = r.purchases + excluded.purchases, amount = r.amount + excluded.amount,
              refunded = r.refunded + excluded.refunded
          returning bucket
        )
        select (select count(*) from gone)::int as folded, (select ${bucketList} from folded) as buckets`,
  );
  // Latencies: every statement's row of a past day, into one row per day and latency bucket.
  const [latency] = await rows<{ folded: number; buckets: string | null }>(
    db,
    sql`with gone as (
          delete from purchase_latencies where bucket < ${cutoff}::timestamptz returning bucket, micros, counts
        ), folded as (
          insert into purchase_latency_rollups as l (bucket, latency_bucket, purchases, micros)
          select gone.bucket, topsync_latency_bucket(u.micros), sum(u.n), sum(u.micros * u.n)
          from gone cross join lateral unnest(gone.micros, gone.counts) as u(micros, n)
          group by 1, 2 order by 1, 2
          on conflict (bucket, latency_bucket) do update set purchases = l.purchases + excluded.purchases,
            micros = l.micros + excluded.micros
          returning bucket
        )
        select (select count(*) from gone)::int as folded, (select ${bucketList} from folded) as buckets`,
  );
  // Keys whose purchases have all moved on (a day's `submitting`, say) fold to zero: nothing to keep.
  const buckets = `{${[rollups?.buckets, latency?.buckets].filter(Boolean).join(",")}}`;
  if (buckets !== "{}") {
    await rows(
      db,
      sql`delete from purchase_rollups where shard = -1 and bucket = any(${buckets}::timestamptz[])
          and purchases = 0 and amount = 0 and refunded = 0`,
    );
    await rows(
      db,
      sql`delete from purchase_latency_rollups where bucket = any(${buckets}::timestamptz[])
          and purchases = 0 and micros = 0`,
    );
  }
  return (rollups?.folded ?? 0) + (latency?.folded ?? 0);
}
