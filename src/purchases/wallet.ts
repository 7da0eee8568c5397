// The wallet as the ledger knows it: the balance the reseller last reported (kv "wallet"), and what that balance
// cannot include yet. The claim statement locks the same row; dry runs and reports read it here.
import { sql } from "drizzle-orm";
import { type Executor, rows } from "../db/client.js";
import { type Money, parseMoney } from "../money.js";
import { walletLowNotices } from "../notify/outbox/write.js";
import type { LedgerState } from "./projection.js";

export const WALLET_KEY = "wallet";

/**
 * What the last reported balance (the wallet row, aliased `k`) cannot include yet: purchases in flight
 * (`submitting`), purchases that may have been charged without an answer saying so (`in_doubt`: counted as spent
 * until settled, as the daily budget counts them, even when a later balance may already include them), and every
 * purchase whose answer came after the answer that reported it (`answer_seq` above the balance's `seq`; even one
 * that failed since: counting it too errs on the safe side; an in_doubt purchase settled as bought takes its place
 * in that order when it is settled). Which answers a balance includes is decided by the order of answers, never
 * by comparing two clocks. Amounts are what the provider charged, where it said.
 *
 * Those answers are a handful at the top of `purchases_answer_seq`, but PostgreSQL cannot know the balance's `seq`
 * when it plans and guesses a third of the table for `answer_seq > seq`: a plan made while the ledger was small (a
 * run's first claims, whose plan the session keeps) read the whole table at every claim, 300 times in a run of
 * 10,000. Bounded on both sides, the guess is half a percent, and the index is read.
 */
export const UNREFLECTED = sql`((select coalesce(sum(coalesce(charged_amount, amount)), 0) from purchases
     where state in ('submitting', 'in_doubt'))
  + (select coalesce(sum(coalesce(charged_amount, amount)), 0) from purchases
     where answer_seq > coalesce((k.value->>'seq')::bigint, 0) and answer_seq < 9223372036854775807))`;

/**
 * Where the guards start from, unlocked (dry runs and the forecast): committed per budget day of `days`
 * (YYYY-MM-DD), the last reported balance and what it cannot include yet, in one statement whatever the days.
 */
export async function readGuardStart(db: Executor, days: readonly string[]): Promise<LedgerState> {
  const [row] = await rows<{
    wallet: { balance?: string | null; as_of?: string } | string | null;
    in_flight: string;
    committed: Record<string, string> | string | null;
  }>(
    db,
    sql`select k.value as wallet, ${UNREFLECTED}::text as in_flight,
          (select json_object_agg(b.day::text, b.committed::text) from budget_days b
           where b.day = any(${`{${days.join(",")}}`}::date[])) as committed
        from (select 1) one left join kv k on k.key = ${WALLET_KEY}`,
  );
  const parsed = <T>(value: T | string | null | undefined): T | null =>
    typeof value === "string" ? (JSON.parse(value) as T) : (value ?? null);
  const wallet = parsed(row?.wallet);
  const committed = parsed(row?.committed) ?? {};
  return {
    committedByDay: new Map(Object.entries(committed).map(([day, amount]) => [day, parseMoney(amount)])),
    wallet: wallet?.balance
      ? { balance: parseMoney(wallet.balance), asOf: wallet.as_of ? new Date(wallet.as_of) : null }
      : null,
    inFlight: parseMoney(row?.in_flight ?? "0"),
  };
}

/**
 * Records the wallet balance reported by the answer at place `seq` in the order of answers (received at `asOf`),
 * for the wallet floor guard; a balance from an earlier answer never replaces a later one.
 */
export async function recordWalletBalance(
  db: Executor,
  balance: Money,
  seq: number,
  asOf: Date,
  walletLow?: { below: Money; clear_above: Money },
): Promise<void> {
  const value = JSON.stringify({ balance: balance.toFixed(2), seq, as_of: asOf.toISOString() });
  const record = sql`insert into kv (key, value, updated_at) values (${WALLET_KEY}, ${value}::jsonb, now())
        on conflict (key) do update set value = kv.value || excluded.value, updated_at = now()
        where coalesce((kv.value->>'seq')::bigint, -1) < ${seq}`;
  if (!walletLow) {
    await rows(db, record);
    return;
  }
  // The wallet_low notification (crossing below, or back above clear_above) in the statement that records it.
  const notices = walletLowNotices({
    recorded: sql`select 1 from recorded`,
    balance: balance.toFixed(2),
    below: walletLow.below.toFixed(2),
    clearAbove: walletLow.clear_above.toFixed(2),
  });
  await rows(db, sql`with recorded as (${record} returning 1), ${notices} select 1`);
}
