// `notification_unmatched`: a provider notification that no purchase owns once every purchase that could own it
// has had its answer and its verification (`verification.timeout` after it arrived). Told then, not when it is
// first processed: a provider's notification often comes before the purchase's own answer, and matching it at
// that moment would cry wolf. The notifications are read in order of arrival from a watermark (kv), a bounded
// batch per look, so a year of notifications is never scanned again; the watermark stops before one not decided yet
// (waiting, or being processed: a slow verify read, or an unmatched one looked at again), however old.
import { sql } from "drizzle-orm";
import { type Executor, rows } from "../db/client.js";
import { maskedPhoneSql } from "./outbox/write.js";

const WATERMARK_KEY = "notify:unmatched_scan";
const BATCH = 1000;

/** Writes the notices of notifications now due to be told of; returns how many were written. */
export async function writeUnmatchedNotices(db: Executor, graceMs: number): Promise<number> {
  const written = await rows<{ n: number }>(
    db,
    sql`with w as (
          select coalesce((select (value->>'id')::bigint from kv where key = ${WATERMARK_KEY}), 0) as id
        ), scan as (
          select n.id, n.received_at, n.processed_at, n.outcome, n.reference, n.amount, n.phone, n.status, n.reason,
            n.purchase_id
          from provider_notifications n where n.id > (select id from w) order by n.id limit ${BATCH}
        ), unripe as (
          select min(id) as id from scan
          where processed_at is null or outcome = 'received'
            or received_at > now() - ${graceMs} * interval '1 millisecond'
        ), ripe as (
          select * from scan where id < coalesce((select id from unripe), 9223372036854775807)
        ), notice as (
          insert into notification_outbox (trigger, subject, episode, kind, facts)
          select 'notification_unmatched', 'notification:' || r.id, 'unmatched', 'open',
            jsonb_build_object('notification', r.id, 'reference', r.reference, 'amount', r.amount::text,
              'phone', case when r.phone is null then null else ${maskedPhoneSql(sql`r.phone`)} end, 'status', r.status,
              'reason', left(r.reason, 300), 'candidate', r.purchase_id, 'received_at', r.received_at)
          from ripe r
          where r.outcome = 'unmatched'
            and not exists (select 1 from purchases p where r.reference is not null and p.reference = r.reference)
          on conflict (trigger, subject, episode) do nothing
          returning 1
        ), moved as (
          insert into kv (key, value, updated_at)
          select ${WATERMARK_KEY}, jsonb_build_object('id', max(id)), now() from ripe having count(*) > 0
          on conflict (key) do update set value = excluded.value, updated_at = now()
          where (kv.value->>'id')::bigint < (excluded.value->>'id')::bigint
        )
        select count(*)::int as n from notice`,
  );
  return Number(written[0]?.n ?? 0);
}
