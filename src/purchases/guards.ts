// Budget and wallet guards as a pure decision over one batch: given what is already committed,
// which purchases may be sent and which are refused (daily budget, per-run budget, wallet floor). Dry runs use this; the claim applies the
// same walk in SQL under the lock (submit.ts), and test/purchases/guards.test.ts keeps the two in step.
import type { Money } from "../money.js";
import { formatMoney, ZERO } from "../money.js";

export interface GuardLimits {
  dailyLimit?: Money;
  perRunLimit?: Money;
  minWalletBalance: Money;
}

export interface GuardState {
  /** Committed today (budget day) across every process, read under lock. */
  dailyCommitted: Money;
  /** Committed by this run so far. */
  runCommitted: Money;
  /** Last balance the reseller reported, or undefined before the first purchase. */
  walletBalance?: Money;
  /** What the last reported balance cannot include yet: `submitting`, `in_doubt`, answered after it (wallet.ts). */
  inFlight: Money;
}

export type GuardDecision =
  | { ok: true }
  | { ok: false; code: "daily_budget" | "run_budget" | "wallet_floor"; reason: string };

/** Decides each amount in order, counting the ones already allowed in this batch. */
export function applyGuards(amounts: Money[], limits: GuardLimits, state: GuardState): GuardDecision[] {
  let daily = state.dailyCommitted;
  let run = state.runCommitted;
  let spentHere = ZERO;
  return amounts.map((amount) => {
    if (limits.dailyLimit && daily.plus(amount).gt(limits.dailyLimit)) {
      return refuse(
        "daily_budget",
        `daily budget: ${formatMoney(daily)} committed today + ${formatMoney(amount)} > daily_limit ${formatMoney(limits.dailyLimit)}`,
      );
    }
    if (limits.perRunLimit && run.plus(amount).gt(limits.perRunLimit)) {
      return refuse(
        "run_budget",
        `per-run budget: ${formatMoney(run)} this run + ${formatMoney(amount)} > per_run_limit ${formatMoney(limits.perRunLimit)}`,
      );
    }
    if (state.walletBalance !== undefined) {
      const after = state.walletBalance.minus(state.inFlight).minus(spentHere).minus(amount);
      if (after.lt(limits.minWalletBalance)) {
        return refuse(
          "wallet_floor",
          `wallet floor: balance ${formatMoney(state.walletBalance)} less ${formatMoney(state.inFlight.plus(spentHere))} in flight less ${formatMoney(amount)} would be ${formatMoney(after)}, below min_wallet_balance ${formatMoney(limits.minWalletBalance)}`,
        );
      }
    }
    daily = daily.plus(amount);
    run = run.plus(amount);
    spentHere = spentHere.plus(amount);
    return { ok: true } as const;
  });
}

function refuse(code: "daily_budget" | "run_budget" | "wallet_floor", reason: string): GuardDecision {
  return { ok: false, code, reason };
}

/** The budget day of an instant in a time zone, as YYYY-MM-DD. */
export function budgetDay(instant: Date, timeZone: string): string {
  if (isUtc(timeZone)) return instant.toISOString().slice(0, 10);
  const ms = instant.getTime();
  if (!(ms >= WHOLE_MINUTE_OFFSETS_FROM)) return dayFormat(timeZone).format(instant);
  const minute = Math.floor(ms / MINUTE_MS);
  const last = lastDays.get(timeZone);
  if (last?.minute === minute) return last.day;
  const day = dayFormat(timeZone).format(new Date(minute * MINUTE_MS));
  lastDays.set(timeZone, { minute, day });
  return day;
}

const MINUTE_MS = 60_000;
/**
 * Since 1980 every zone's offset from UTC is a whole number of minutes (the last in seconds, Liberia's −0:44:30,
 * ended in 1972), so a day starts on a minute's first millisecond and every instant of a minute has its day.
 */
const WHOLE_MINUTE_OFFSETS_FROM = Date.UTC(1980, 0, 1);
/**
 * The last minute asked for in each zone and its day. A run asks at every claim, hundreds of times a minute, and
 * a formatter's answer costs some 30 µs: 30 ms of a 10,000-purchase run.
 */
const lastDays = new Map<string, { minute: number; day: string }>();

/**
 * Makes the formatter budget days of `timeZone` need. The first one a process makes loads ICU's time zone data
 * (some 10 ms): a run makes it while it waits for the database, not when its first claim needs it.
 */
export function prepareBudgetDays(timeZone: string): void {
  if (!isUtc(timeZone)) dayFormat(timeZone);
}

/** UTC needs no time zone data (and no formatter). */
function isUtc(timeZone: string): boolean {
  return timeZone === "UTC" || timeZone === "Etc/UTC";
}

function dayFormat(timeZone: string): Intl.DateTimeFormat {
  let format = dayFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-CA", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
    });
    dayFormats.set(timeZone, format);
  }
  return format;
}

/** Building a formatter costs far more than using one; a run asks for the day at every claim. */
const dayFormats = new Map<string, Intl.DateTimeFormat>();
