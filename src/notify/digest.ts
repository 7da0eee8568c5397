// The daily digest: on `notifications.digest.schedule`, one message with the day's spend, the budget used, the
// wallet and the open problems — and, by arriving at all, that topsync is alive. Its key is the fire's time, so
// every replica may try and one message is written.
import { sql } from "drizzle-orm";
import type { Config } from "../config/index.js";
import { type Executor, rows } from "../db/client.js";
import { parseMoney } from "../money.js";
import { budgetDay } from "../purchases/guards.js";
import { cronLatestFire } from "../time/cron.js";
import { writeNotices } from "./outbox/write.js";

/** A fire this late (the daemon was down at its time) still sends the digest. */
const DIGEST_LATE_MS = 15 * 60_000;

/** Writes the digest of the latest fire of the schedule, if it is recent and not yet written; true when written. */
export async function writeDueDigest(
  db: Executor,
  config: Config,
  now: Date,
  replica: string,
): Promise<boolean> {
  const digest = config.notifications.digest;
  if (!digest) return false;
  const fire = cronLatestFire(digest.schedule, config.timezone, now, DIGEST_LATE_MS);
  if (!fire) return false;
  const episode = fire.toISOString();
  const [exists] = await rows<{ n: number }>(
    db,
    sql`select 1 as n from notification_outbox where trigger = 'digest' and subject = 'digest' and episode = ${episode}`,
  );
  if (exists) return false;
  const facts = await digestFacts(db, config, now, replica);
  return (await writeNotices(db, [{ trigger: "digest", subject: "digest", episode, facts }])) > 0;
}

export async function digestFacts(
  db: Executor,
  config: Config,
  now: Date,
  replica: string,
): Promise<Record<string, unknown>> {
  const day = budgetDay(now, config.timezone);
  const [found] = await rows<{
    spent: string | null;
    wallet: string | null;
    in_doubt: number | string;
    unverified: number | string;
    noted: number | string;
    failed: number | string;
  }>(
    db,
    sql`select (select committed::text from budget_days where day = ${day}::date) as spent,
          (select value->>'balance' from kv where key = 'wallet') as wallet,
          (select coalesce(sum(purchases), 0) from purchase_state_counts where state = 'in_doubt') as in_doubt,
          (select coalesce(sum(purchases), 0) from purchase_state_counts where state = 'unverified') as unverified,
          (select coalesce(sum(purchases), 0) from purchase_state_counts where note_kind <> '') as noted,
          (select count(*) from notification_deliveries where status = 'failed' and created_at > now() - interval '24 hours') as failed`,
  );
  const limit = config.budget.daily_limit;
  const spent = found?.spent ?? "0.00";
  return {
    day,
    spent_today: spent,
    daily_limit: limit ? limit.toFixed(2) : null,
    budget_used_percent: limit?.gt(0)
      ? Number(parseMoney(spent).times(100).div(limit).round(0).toFixed(0))
      : null,
    wallet: found?.wallet ?? null,
    in_doubt: Number(found?.in_doubt ?? 0),
    unverified: Number(found?.unverified ?? 0),
    noted: Number(found?.noted ?? 0),
    notifications_failed: Number(found?.failed ?? 0),
    alive: `${replica} at ${now.toISOString()}`,
  };
}
