// Exact money: decimal strings at the edges, big.js in code, `numeric` in the database. Never a float.
import Big from "big.js";

export type Money = Big;

const DECIMAL = /^-?\d+(\.\d+)?$/;

/** Parses a decimal string (or a safe integer) into Money; throws a RangeError naming the value. */
export function parseMoney(value: string | number | bigint): Money {
  const text = typeof value === "string" ? value.trim().replaceAll(",", "") : String(value);
  if (!DECIMAL.test(text)) throw new RangeError(`"${String(value)}" is not a decimal amount`);
  return new Big(text);
}

export function isMoneyText(value: string): boolean {
  return DECIMAL.test(value.trim().replaceAll(",", ""));
}

export const ZERO: Money = new Big(0);

/** The largest amount the ledger's money columns (`numeric(14,2)`) hold; a larger one cannot be stored. */
export const MONEY_MAX: Money = new Big("999999999999.99");

/** Whether an amount fits the ledger's money columns (its magnitude at most MONEY_MAX). */
export function fitsLedger(value: Money): boolean {
  return value.abs().lte(MONEY_MAX);
}

/** Two decimal places, the way the reseller writes amounts: "305.00". */
export function formatMoney(value: Money): string {
  return value.toFixed(2);
}

export function sumMoney(values: Iterable<Money>): Money {
  let total = ZERO;
  for (const v of values) total = total.plus(v);
  return total;
}

export { Big };
