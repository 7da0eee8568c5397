// Grouping and routing: pending outbox rows of one trigger and kind become one message per subscribed channel
// once the oldest has waited `group_wait` (at once for `notify flush`); triggers that are not grouped (GROUPED) make
// a message of each row. One transaction per group takes its rows
// with SKIP LOCKED, so replicas routing together never put one event in two messages; rows no rule sends are
// marked dropped.
import { sql } from "drizzle-orm";
import type { NotificationsConfig } from "../config/index.js";
import { type Database, type Queryable, rows } from "../db/client.js";
import { groupMessage, type OutboxEvent } from "./message.js";
import { isTrigger, type NoticeKind } from "./outbox/triggers.js";
import { channelsFor } from "./rules.js";

/** The most events one message takes; more wait for the next message of their trigger. */
export const MAX_GROUP = 10_000;

/**
 * Triggers whose events within group_wait become one message: many of them arise together (a run's in_doubt
 * purchases, runs stopping while the provider is down, skipped fires after downtime). The others are one message
 * each: a budget threshold, the wallet, a website pass, a plan, the digest.
 */
export const GROUPED: ReadonlySet<string> = new Set([
  "in_doubt",
  "unverified",
  "verify_mismatch",
  "price_mismatch",
  "reversed",
  "delivered_after_failure",
  "earlier_attempt_delivered",
  "run_failed",
  "notification_unmatched",
  "missed_fire",
]);

export interface RouteOptions {
  /** Route every pending group now, whatever its age (`notify flush`). */
  flush?: boolean;
}

export interface Routed {
  trigger: string;
  kind: string;
  events: number;
  channels: string[];
}

/** Routes every group that is ready; returns what it routed (or dropped: `channels` empty). */
export async function routeReady(
  database: Database,
  config: NotificationsConfig,
  options: RouteOptions = {},
): Promise<Routed[]> {
  const waitMs = options.flush ? 0 : config.group_wait;
  const groups = await rows<{ trigger: string; kind: string }>(
    database.db,
    sql`select trigger, kind from notification_outbox where status = 'pending'
        group by trigger, kind having min(created_at) <= now() - ${waitMs} * interval '1 millisecond'`,
  );
  const routed: Routed[] = [];
  for (const group of groups) {
    if (!isTrigger(group.trigger)) continue;
    // A trigger that is not grouped makes a message of each event: its group is routed until none is left.
    for (;;) {
      const done = await routeGroup(database, config, group.trigger, group.kind as NoticeKind);
      if (!done) break;
      routed.push(done);
      if (GROUPED.has(group.trigger)) break;
    }
  }
  return routed;
}

/** Events one routing transaction takes: a whole group; a batch of single messages; drift one at a time (sameDrift). */
const UNGROUPED_BATCH = 500;

function batchOf(trigger: string): number {
  if (GROUPED.has(trigger)) return MAX_GROUP;
  return trigger === "website_drift" ? 1 : UNGROUPED_BATCH;
}

async function routeGroup(
  database: Database,
  config: NotificationsConfig,
  trigger: OutboxEvent["trigger"],
  kind: NoticeKind,
): Promise<Routed | undefined> {
  const channels = channelsFor(config, trigger, kind);
  return database.transaction(async (tx) => {
    const taken = await tx.all<{
      id: number | string;
      subject: string;
      episode: string;
      facts: Record<string, unknown> | string;
      created_at: Date | string;
    }>(
      sql`select id, subject, episode, facts, created_at from notification_outbox
          where status = 'pending' and trigger = ${trigger} and kind = ${kind}
          order by id limit ${batchOf(trigger)} for update skip locked`,
    );
    if (taken.length === 0) return undefined;
    const events: OutboxEvent[] = taken.map((row) => ({
      id: Number(row.id),
      trigger,
      kind,
      subject: row.subject,
      episode: row.episode,
      facts: typeof row.facts === "string" ? (JSON.parse(row.facts) as Record<string, unknown>) : row.facts,
      created_at: new Date(row.created_at).toISOString(),
    }));
    const repeated =
      trigger === "website_drift" ? await sameDrift(tx, events, config.repeat) : new Set<number>();
    const told = events.filter((e) => !repeated.has(e.id));
    if (told.length === 0) return undefined;
    const ids = `{${told.map((e) => e.id).join(",")}}`;
    if (channels.length > 0) {
      // One message of the whole group, or one per event for a trigger that is not grouped.
      const messages = GROUPED.has(trigger)
        ? [{ ids: told.map((e) => e.id), message: groupMessage(trigger, kind, told) }]
        : told.map((e) => ({ ids: [e.id], message: groupMessage(trigger, kind, [e]) }));
      const deliveries = JSON.stringify(
        messages.flatMap(({ ids, message }) =>
          channels.map((channel) => ({ channel, ids: `{${ids.join(",")}}`, message, first: message.oldest })),
        ),
      );
      await tx.all(
        sql`insert into notification_deliveries (channel, trigger, kind, event_ids, message, first_event_at)
            select d.channel, ${trigger}, ${kind}, d.ids::bigint[], d.message, d.first
            from jsonb_to_recordset(${deliveries}::jsonb) as d(channel text, ids text, message jsonb, first timestamptz)
            order by d.first, d.channel`,
      );
    }
    await tx.all(
      sql`update notification_outbox set status = ${channels.length > 0 ? "routed" : "dropped"}, routed_at = now()
          where id = any(${ids}::bigint[])`,
    );
    return { trigger, kind, events: told.length, channels };
  });
}

/**
 * Drift that a pass within `repeat` already told of (the same changes: its `digest`) is not told again: an
 * observing loop finds the same drift every pass. Those events are marked dropped here; returns their ids.
 */
async function sameDrift(
  tx: Queryable,
  events: readonly OutboxEvent[],
  repeatMs: number,
): Promise<Set<number>> {
  if (repeatMs <= 0) return new Set();
  const ids = `{${events.map((e) => e.id).join(",")}}`;
  const dropped = await tx.all<{ id: number | string }>(
    sql`update notification_outbox o set status = 'dropped', routed_at = now()
        where o.id = any(${ids}::bigint[]) and exists (
          select 1 from notification_outbox r where r.trigger = 'website_drift' and r.status = 'routed'
            and r.facts->>'digest' = o.facts->>'digest'
            and r.created_at > now() - ${repeatMs} * interval '1 millisecond')
        returning o.id`,
  );
  return new Set(dropped.map((row) => Number(row.id)));
}
