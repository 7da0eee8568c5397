// The wallet as the ledger knows it: the balance the reseller last reported (kv "wallet"), and what that balance
// cannot include yet. The claim statement locks the same row; dry runs and reports read it here.
import { sql } from "drizzle-orm";
import { type Executor, rows } from "../db/client.js";
import { type Money, parseMoney } from "../money.js";

export const WALLET_KEY = "wallet";

/**
 * What the last reported balance (the wallet row, aliased `k`) cannot include yet: purchases in flight, and every
 * purchase whose answer came after the answer that reported it (`answer_seq` above the balance's `seq`; even one
 * that failed since: counting it too errs on the safe side). Which answers a balance includes is decided by the
 * order of answers, never by comparing two clocks. Amounts are what the provider charged, where it said.
 */
export const UNREFLECTED = sql`((select coalesce(sum(coalesce(charged_amount, amount)), 0) from purchases
     where state = 'submitting')
  + (select coalesce(sum(coalesce(charged_amount, amount)), 0) from purchases
     where answer_seq > coalesce((k.value->>'seq')::bigint, 0)))`;

interface GuardRow {
  committed: string | null;
  wallet: { balance: string | null; as_of?: string } | null;
  in_flight: string;
}

/** The guards' starting point, unlocked: committed today, the last reported balance, and what it cannot include. */
function guardStatement(day: string) {
  return sql`select b.committed::text as committed, k.value as wallet, ${UNREFLECTED}::text as in_flight
    from (select 1) one left join budget_days b on b.day = ${day} left join kv k on k.key = ${WALLET_KEY}`;
}

function guardState(row: GuardRow) {
  const balance = row.wallet?.balance;
  return {
    dailyCommitted: parseMoney(row.committed ?? "0"),
    walletBalance: balance ? parseMoney(balance) : undefined,
    inFlight: parseMoney(row.in_flight ?? "0"),
  };
}

/** Guard state without locking, for dry runs and reports. */
export async function readGuardState(db: Executor, day: string) {
  const [row] = await rows<GuardRow>(db, guardStatement(day));
  return guardState(row ?? { committed: null, wallet: null, in_flight: "0" });
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
): Promise<void> {
  const value = JSON.stringify({ balance: balance.toFixed(2), seq, as_of: asOf.toISOString() });
  await rows(
    db,
    sql`insert into kv (key, value, updated_at) values (${WALLET_KEY}, ${value}::jsonb, now())
        on conflict (key) do update set value = kv.value || excluded.value, updated_at = now()
        where coalesce((kv.value->>'seq')::bigint, -1) < ${seq}`,
  );
}

/** The last balance the reseller reported and when, or null before the first purchase answer. */
export async function readWallet(db: Executor): Promise<{ balance: Money; asOf: Date | null } | null> {
  const [row] = await rows<{ value: { balance?: string | null; as_of?: string } | string }>(
    db,
    sql`select value from kv where key = ${WALLET_KEY}`,
  );
  const value = typeof row?.value === "string" ? JSON.parse(row.value) : row?.value;
  if (!value?.balance) return null;
  return { balance: parseMoney(value.balance), asOf: value.as_of ? new Date(value.as_of) : null };
}
