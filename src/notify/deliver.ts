// Delivering messages: a claim takes, per channel whose pace allows a send now, its next due message (SKIP
// LOCKED on the channel's row and the message's, so across replicas one deliverer sends a message and a
// channel's pace holds), leases it, and pushes the channel's next send out by its pace. The send's outcome is
// recorded by the deliverer that holds the lease: sent; or due again after the channel's Retry-After (which
// holds back the whole channel) or a backoff; or failed once `give_up_after` has passed since it was routed.
import { sql } from "drizzle-orm";
import type { Database } from "../db/client.js";
import type { Logger } from "../log/logger.js";
import { redactSecretForms } from "../text/secrets.js";
import { cutText, storableText } from "../text/storable.js";
import type { Channel, SendResult } from "./channels/index.js";
import type { NotifyMessage } from "./message.js";
import type { RenderContext } from "./templates.js";

/** How long a claimed message is its deliverer's; after that another replica may take it (the first died). */
const LEASE_MS = 120_000;
/** Messages one claim takes from a channel without a pace (a webhook at its default). */
const UNPACED_BATCH = 16;
const RETRY_BASE_MS = 1000;
const RETRY_MAX_MS = 5 * 60_000;

export interface DeliveryObserver {
  sent(channel: string, trigger: string, latencyMs: number): void;
  failed(channel: string, trigger: string): void;
}

export interface DeliverDeps {
  database: Database;
  channels: Map<string, Channel>;
  logger: Logger;
  /** Who claims: the replica or the command. */
  claimer: string;
  giveUpAfterMs: number;
  /** How long one send may take (notifications.timeout): a lease outlasts it. */
  sendTimeoutMs: number;
  /** The context messages are rendered in (secrets to redact, the console's URL); `now` is set per send. */
  render: Omit<RenderContext, "now">;
  observer?: DeliveryObserver;
  now(): number;
}

interface ClaimedRow {
  id: number | string;
  channel: string;
  trigger: string;
  message: NotifyMessage | string;
  attempts: number;
  created_at: Date | string;
  first_event_at: Date | string;
}

/** Registers the configured channels (their pace rows), so claims can lock them. */
export async function ensureChannels(database: Database, names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  await database.all(
    sql`insert into notification_channels (name) select unnest(${`{${names.map(quoteArrayItem).join(",")}}`}::text[])
        on conflict (name) do nothing`,
  );
}

function quoteArrayItem(name: string): string {
  return `"${name.replace(/["\\]/g, "\\$&")}"`;
}

/**
 * Messages to a channel this config does not have (taken out, or renamed) that are older than `give_up_after`:
 * failed, naming why. No deliverer would take them; younger ones are left to a replica whose config still has the
 * channel (a rolling deploy). Returns them.
 */
export async function failUnconfigured(
  database: Database,
  names: readonly string[],
  giveUpAfterMs: number,
): Promise<Array<{ id: number; channel: string; trigger: string }>> {
  const failed = await database.all<{ id: number | string; channel: string; trigger: string }>(
    sql`update notification_deliveries set status = 'failed', lease_until = null,
          last_error = 'no channel named "' || channel || '" in the config: not delivered within give_up_after'
        where status in ('pending', 'sending') and (status = 'pending' or lease_until < now())
          and channel <> all(${`{${names.map(quoteArrayItem).join(",")}}`}::text[])
          and created_at < now() - ${giveUpAfterMs} * interval '1 millisecond'
        returning id, channel, trigger`,
  );
  return failed.map((row) => ({ ...row, id: Number(row.id) }));
}

export interface DeliverOptions {
  /** Channels not to claim for: their sends of an earlier claim are still going. */
  skip?: ReadonlySet<string>;
  /**
   * Takes each channel's sends (ending with their record) instead of waiting for them: the daemon's loop claims
   * again for the other channels meanwhile, so a receiver that hangs holds up only its own channel. Without it,
   * every channel's sends are waited for (`notify flush`, a test's round).
   */
  detach?: (channel: string, sends: Promise<void>) => void;
}

/** Claims what is due and sends it; resolves with how many messages were claimed. */
export async function deliverDue(deps: DeliverDeps, options: DeliverOptions = {}): Promise<number> {
  const claimed = await claimDue(deps, options.skip);
  const waited: Promise<void>[] = [];
  for (const rows of groupByChannel(claimed)) {
    const sends = sendChannel(deps, rows).then((sent) => recordSent(deps, sent));
    if (options.detach) options.detach(rows[0]!.channel, sends);
    else waited.push(sends);
  }
  await Promise.all(waited);
  return claimed.length;
}

/**
 * One channel's claimed messages, one after another, in order; a 429 holds back the rest of them. Each after the
 * first is sent only once its lease is renewed: sixteen sends of a channel's timeout each can outlast the lease the
 * claim took, and another replica may then have taken (and sent) the rest. Resolves with those sent.
 */
async function sendChannel(deps: DeliverDeps, rows: readonly ClaimedRow[]): Promise<Sent[]> {
  const sent: Sent[] = [];
  const unrecorded: ClaimedRow[] = [];
  for (const [index, row] of rows.entries()) {
    if (index > 0 && !(await renewLeases(deps, row, unrecorded))) continue;
    const outcome = await deliverOne(deps, row);
    if (outcome.sent) {
      sent.push(outcome.sent);
      unrecorded.push(row);
    } else if (outcome.retryAfterMs !== undefined) {
      await release(deps, rows.slice(index + 1), outcome.retryAfterMs);
      break;
    }
  }
  return sent;
}

/**
 * Renews this deliverer's leases of a claimed message before its send, and of the messages it sent before it in
 * this claim (recorded sent only at the claim's end); false when it no longer holds the message.
 */
async function renewLeases(
  deps: DeliverDeps,
  row: ClaimedRow,
  sentBefore: readonly ClaimedRow[],
): Promise<boolean> {
  const ids = `{${[row, ...sentBefore].map((r) => Number(r.id)).join(",")}}`;
  const held = await deps.database.all<{ id: number | string }>(
    sql`update notification_deliveries set lease_until = now() + ${leaseMs(deps)} * interval '1 millisecond'
        where id = any(${ids}::bigint[]) and status = 'sending' and claimed_by = ${deps.claimer}
        returning id`,
  );
  return held.some((held) => Number(held.id) === Number(row.id));
}

/** A lease covers a send of the channel's timeout several times over (a mail's connect, greeting and data phases). */
function leaseMs(deps: DeliverDeps): number {
  return Math.max(LEASE_MS, 3 * deps.sendTimeoutMs);
}

interface Sent {
  row: ClaimedRow;
  answer: string;
}

/** The messages one channel's claim delivered, recorded in one statement (by the lease holder only). */
async function recordSent(deps: DeliverDeps, sent: readonly Sent[]): Promise<void> {
  if (sent.length === 0) return;
  const payload = JSON.stringify(sent.map(({ row, answer }) => ({ id: Number(row.id), answer })));
  await deps.database.all(
    sql`update notification_deliveries d set status = 'sent', sent_at = now(), lease_until = null,
          answer = v.answer, last_error = null
        from json_to_recordset(${payload}::json) as v(id bigint, answer text)
        where d.id = v.id and d.status = 'sending' and d.claimed_by = ${deps.claimer}`,
  );
  for (const { row } of sent) {
    deps.observer?.sent(row.channel, row.trigger, deps.now() - new Date(row.first_event_at).getTime());
    deps.logger.info(
      { delivery: Number(row.id), channel: row.channel, trigger: row.trigger },
      `notification ${row.id} (${row.trigger}) sent to ${row.channel}`,
    );
  }
}

/** Claimed messages not sent because their channel answered 429: due again after its Retry-After, untried. */
async function release(deps: DeliverDeps, rows: readonly ClaimedRow[], afterMs: number): Promise<void> {
  if (rows.length === 0) return;
  const ids = `{${rows.map((row) => Number(row.id)).join(",")}}`;
  await deps.database.all(
    sql`update notification_deliveries set status = 'pending', attempts = attempts - 1, lease_until = null,
          next_attempt_at = now() + ${afterMs} * interval '1 millisecond'
        where id = any(${ids}::bigint[]) and status = 'sending' and claimed_by = ${deps.claimer}`,
  );
}

function groupByChannel(rows: ClaimedRow[]): ClaimedRow[][] {
  const by = new Map<string, ClaimedRow[]>();
  for (const row of rows) by.set(row.channel, [...(by.get(row.channel) ?? []), row]);
  return [...by.values()];
}

async function claimDue(deps: DeliverDeps, skip?: ReadonlySet<string>): Promise<ClaimedRow[]> {
  const names = [...deps.channels.keys()].filter((name) => !skip?.has(name));
  if (names.length === 0) return [];
  const paces = JSON.stringify(Object.fromEntries([...deps.channels].map(([name, c]) => [name, c.paceMs])));
  const limits = JSON.stringify(
    Object.fromEntries([...deps.channels].map(([name, c]) => [name, c.paceMs === 0 ? UNPACED_BATCH : 1])),
  );
  return deps.database.all<ClaimedRow>(
    sql`with ch as (
          select name from notification_channels
          where name = any(${`{${names.map(quoteArrayItem).join(",")}}`}::text[]) and next_send_at <= now()
          order by name for update skip locked
        ), pick as (
          select d.id from ch cross join lateral (
            select id from notification_deliveries d
            where d.channel = ch.name and ((d.status = 'pending' and d.next_attempt_at <= now())
              or (d.status = 'sending' and d.lease_until < now()))
            order by d.id limit (${limits}::jsonb ->> ch.name)::int for update skip locked
          ) d
        ), claimed as (
          update notification_deliveries d set status = 'sending', attempts = d.attempts + 1,
            lease_until = now() + ${leaseMs(deps)} * interval '1 millisecond', claimed_by = ${deps.claimer}
          from pick where d.id = pick.id
          returning d.id, d.channel, d.trigger, d.message, d.attempts, d.created_at, d.first_event_at
        ), paced as (
          update notification_channels c
          set next_send_at = now() + (${paces}::jsonb ->> c.name)::int * (select count(*) from claimed k where k.channel = c.name)
            * interval '1 millisecond'
          where c.name in (select channel from claimed)
        )
        select * from claimed order by id`,
  );
}

async function deliverOne(
  deps: DeliverDeps,
  row: ClaimedRow,
): Promise<{ sent?: Sent; retryAfterMs?: number }> {
  const channel = deps.channels.get(row.channel);
  if (!channel) return {};
  const message = typeof row.message === "string" ? (JSON.parse(row.message) as NotifyMessage) : row.message;
  const result: SendResult = await channel
    .send(message, { ...deps.render, now: new Date(deps.now()), delivery: String(row.id) })
    .catch((error: unknown) => ({ ok: false as const, answer: "", error: String(error) }));
  const id = Number(row.id);
  // What a channel answered, kept: without its secrets, cut whole, and storable (a NUL in an answer failed the
  // statement recording it, and the message was sent again when its lease ran out).
  const clean = (text: string) => storableText(cutText(scrub(text, deps.render.secrets), 2000));
  if (result.ok) return { sent: { row, answer: clean(result.answer) } };
  // A channel's wait as one the ledger can hold, and never past give_up_after: a receiver's Retry-After of 10^20 s
  // (or Telegram's retry_after of 1e300) is no interval PostgreSQL can store, recording the outcome failed and the
  // message went out again each time its lease ran out; a storable ten years held the whole channel that long, its
  // later messages neither sent nor given up. A wait past give_up_after gives the message up now.
  // And never less than the backoff of this many attempts: a wait of none ("Retry-After: 0", a date gone by) made
  // the message due again at once with the channel not held, and the daemon's loop sent it again and again, as fast
  // as the ledger answered, to a receiver saying it was overloaded.
  const asked = result.retryAfterMs;
  const retryAfterMs =
    asked === undefined
      ? undefined
      : Math.max(
          boundedWait(asked, deps.giveUpAfterMs),
          Math.min(retryDelay(row.attempts), deps.giveUpAfterMs),
        );
  const delay = retryAfterMs ?? retryDelay(row.attempts);
  const age = deps.now() - new Date(row.created_at).getTime();
  const giveUp = age + delay > deps.giveUpAfterMs;
  const error = clean(
    asked !== undefined && !(asked <= deps.giveUpAfterMs)
      ? `${result.error}: the channel asked to wait longer than give_up_after`
      : result.error,
  );
  await deps.database.all(
    sql`with d as (
          update notification_deliveries set status = ${giveUp ? "failed" : "pending"},
            next_attempt_at = now() + ${delay} * interval '1 millisecond', lease_until = null,
            answer = ${clean(result.answer)}, last_error = ${error}
          where id = ${id} and status = 'sending' and claimed_by = ${deps.claimer}
          returning channel
        )
        update notification_channels c set next_send_at = greatest(c.next_send_at, now() + ${retryAfterMs ?? 0} * interval '1 millisecond')
        where c.name in (select channel from d) and ${retryAfterMs !== undefined}`,
  );
  if (giveUp) {
    deps.observer?.failed(row.channel, row.trigger);
    deps.logger.error(
      { delivery: id, channel: row.channel, trigger: row.trigger },
      `notification ${id} (${row.trigger}) to ${row.channel} failed for good after ${row.attempts} attempts: ${error}`,
    );
  } else {
    deps.logger.warn(
      { delivery: id, channel: row.channel, trigger: row.trigger },
      `notification ${id} (${row.trigger}) to ${row.channel} not delivered (${error}); trying again in ${delay} ms`,
    );
  }
  return { retryAfterMs };
}

/** A channel's asked wait in whole milliseconds from 0 to `most` (a negative one is none, a garbage one the most). */
function boundedWait(asked: number, most: number): number {
  if (!Number.isFinite(asked)) return most;
  return Math.round(Math.min(Math.max(0, asked), most));
}

/** Exponential backoff with half jitter: the n-th failure waits between half and all of min(max, base·2^(n-1)). */
export function retryDelay(attempts: number, random: () => number = Math.random): number {
  const ceiling = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

function scrub(text: string, secrets: readonly string[]): string {
  return secrets.reduce((out, secret) => redactSecretForms(out, secret), text);
}
