// Reading the outbox for people: `notify list`, `report`'s failed notifications, and the outbox's age and size
// for /metrics.
import { sql } from "drizzle-orm";
import { type Executor, rows } from "../db/client.js";

export interface OutboxEntry {
  /** An event not yet in a message, or a message to a channel. */
  what: "event" | "message";
  id: number;
  trigger: string;
  kind: string;
  subject: string | null;
  channel: string | null;
  status: string;
  events: number;
  attempts: number;
  created_at: string;
  next_attempt_at: string | null;
  sent_at: string | null;
  last_error: string | null;
  answer: string | null;
}

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

/** Events waiting for their message (pending) and the newest messages, newest first. */
export async function listOutbox(
  db: Executor,
  options: { limit: number; status?: string },
): Promise<OutboxEntry[]> {
  const status = options.status ?? null;
  const found = await rows<{
    what: "event" | "message";
    id: number | string;
    trigger: string;
    kind: string;
    subject: string | null;
    channel: string | null;
    status: string;
    events: number | string;
    attempts: number;
    created_at: Date | string;
    next_attempt_at: Date | string | null;
    sent_at: Date | string | null;
    last_error: string | null;
    answer: string | null;
  }>(
    db,
    sql`select * from (
          select 'event' as what, id, trigger, kind, subject, null::text as channel, status, 1 as events, 0 as attempts,
            created_at, null::timestamptz as next_attempt_at, null::timestamptz as sent_at, null::text as last_error,
            null::text as answer
          from notification_outbox where status = 'pending' and (${status}::text is null or status = ${status})
          union all
          select 'message', id, trigger, kind, null, channel, status, cardinality(event_ids), attempts, created_at,
            next_attempt_at, sent_at, last_error, answer
          from notification_deliveries where ${status}::text is null or status = ${status}
        ) x order by created_at desc, id desc limit ${options.limit}`,
  );
  return found.map((row) => ({
    ...row,
    id: Number(row.id),
    events: Number(row.events),
    created_at: iso(row.created_at)!,
    next_attempt_at: iso(row.next_attempt_at),
    sent_at: iso(row.sent_at),
  }));
}

export interface OutboxStats {
  /** Events waiting for their message, and messages not yet delivered (pending or being sent). */
  pendingEvents: number;
  pendingMessages: number;
  failedMessages: number;
  /** Seconds since the oldest undelivered event was written (0 when none). */
  oldestSeconds: number;
  /** The conditions the alerting rules watch beside the outbox: the last balance the reseller reported (decimal). */
  walletBalance: string | null;
  /** When a purchase run last stopped (its run_failed event, written whatever the rules), in Unix seconds. */
  lastRunFailed: number | null;
}

export async function readOutboxStats(db: Executor): Promise<OutboxStats> {
  const [found] = await rows<{
    events: number | string;
    messages: number | string;
    failed: number | string;
    oldest: number | string | null;
    wallet: string | null;
    run_failed: number | string | null;
  }>(
    db,
    sql`select (select count(*) from notification_outbox where status = 'pending') as events,
          (select value->>'balance' from kv where key = 'wallet') as wallet,
          (select extract(epoch from max(created_at)) from notification_outbox where trigger = 'run_failed') as run_failed,
          (select count(*) from notification_deliveries where status in ('pending', 'sending')) as messages,
          (select count(*) from notification_deliveries where status = 'failed') as failed,
          extract(epoch from now() - least(
            (select min(created_at) from notification_outbox where status = 'pending'),
            (select min(first_event_at) from notification_deliveries where status in ('pending', 'sending'))
          )) as oldest`,
  );
  return {
    pendingEvents: Number(found?.events ?? 0),
    pendingMessages: Number(found?.messages ?? 0),
    failedMessages: Number(found?.failed ?? 0),
    oldestSeconds:
      found?.oldest === null || found?.oldest === undefined ? 0 : Math.max(0, Number(found.oldest)),
    walletBalance: found?.wallet ?? null,
    lastRunFailed:
      found?.run_failed === null || found?.run_failed === undefined ? null : Number(found.run_failed),
  };
}

/** Messages that failed for good since `since`, newest first (for `report`). */
export async function failedMessages(db: Executor, since: Date): Promise<OutboxEntry[]> {
  const all = await listOutbox(db, { limit: 1000, status: "failed" });
  return all.filter((entry) => Date.parse(entry.created_at) >= since.getTime());
}

/** Events written since `since` that no message has taken yet (what a command leaves for the daemon). */
export async function countWrittenSince(db: Executor, since: Date): Promise<number> {
  const [found] = await rows<{ n: number | string }>(
    db,
    sql`select count(*) as n from notification_outbox where status = 'pending' and created_at >= ${since.toISOString()}::timestamptz`,
  );
  return Number(found?.n ?? 0);
}
