// Sandbox money: whole kobo as integers in code, two-decimal naira strings at the edges. Never float naira.
import Big from "big.js";

/** Kobo for a naira decimal string such as "305.00" or "1000000"; throws a RangeError naming the value. */
export function toKobo(naira: string): number {
  const text = naira.trim();
  if (!/^\d+(\.\d{1,2})?$/.test(text)) throw new RangeError(`"${naira}" is not a naira amount`);
  return new Big(text).times(100).toNumber();
}

/** "305.00" for 30500 kobo. */
export function nairaText(kobo: number): string {
  const sign = kobo < 0 ? "-" : "";
  const abs = Math.abs(kobo);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

/** The wallet balance as the reseller writes it in a purchase result: a JSON number of naira. */
export function nairaNumber(kobo: number): number {
  return Number(nairaText(kobo));
}
