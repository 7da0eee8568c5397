// Episodes still open after `repeat` are told again: an in_doubt purchase still in_doubt, an unverified one still
// unverified, a verify mismatch not yet settled, the wallet still low. A repeat is an outbox row of kind `repeat`
// whose episode counts the periods since the episode opened, so each period writes it once across replicas.
import { sql } from "drizzle-orm";
import { type Executor, rows } from "../db/client.js";
import { WALLET_LOW_KEY } from "./outbox/write.js";

/** Episodes are repeated for this long after they opened; after that `report` and the alerting rules keep showing them. */
const REPEAT_HORIZON_DAYS = 30;

/** Writes the repeats now due; returns how many. Only episodes that were routed somewhere are repeated. */
export async function writeRepeats(db: Executor, repeatMs: number): Promise<number> {
  if (repeatMs <= 0) return 0;
  const written = await rows<{ n: number }>(
    db,
    sql`with due as (
          select o.trigger, o.subject, o.episode, o.facts, o.created_at,
            floor(extract(epoch from now() - o.created_at) * 1000 / ${repeatMs})::int as period
          from notification_outbox o
          where o.kind = 'open' and o.status = 'routed'
            and o.created_at <= now() - ${repeatMs} * interval '1 millisecond'
            and o.created_at > now() - ${REPEAT_HORIZON_DAYS} * interval '1 day'
            and o.trigger in ('in_doubt', 'unverified', 'verify_mismatch', 'wallet_low')
            and not exists (select 1 from notification_outbox later where later.subject = o.subject
              and later.trigger = o.trigger and later.kind = 'open' and later.id > o.id)
        ), still_open as (
          select due.* from due
          left join purchases p on due.subject like 'purchase:%' and p.id = substring(due.subject from 10)::bigint
          left join kv w on due.trigger = 'wallet_low' and w.key = ${WALLET_LOW_KEY}
          where case due.trigger
            when 'in_doubt' then p.state = 'in_doubt'
            when 'unverified' then p.state = 'unverified' and coalesce(p.note, '') not like 'verify_mismatch%'
            when 'verify_mismatch' then p.state = 'unverified' and p.note like 'verify_mismatch%'
            when 'wallet_low' then coalesce((w.value->>'open')::boolean, false)
              and w.value->>'episode' = substring(due.episode from 9)
            else false end
        ), written as (
          insert into notification_outbox (trigger, subject, episode, kind, facts)
          select s.trigger, s.subject, s.episode || ':repeat:' || s.period, 'repeat',
            s.facts || jsonb_build_object('open_since', s.created_at)
              || case when s.trigger = 'wallet_low' then coalesce((select jsonb_build_object('balance', k.value->>'balance')
                   from kv k where k.key = 'wallet' and k.value->>'balance' is not null), '{}'::jsonb) else '{}'::jsonb end
          from still_open s
          on conflict (trigger, subject, episode) do nothing
          returning 1
        )
        select count(*)::int as n from written`,
  );
  return Number(written[0]?.n ?? 0);
}
