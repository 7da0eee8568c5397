import { describe, expect, it } from "vitest";
import { parseMoney } from "../../src/money.js";
import { barLengths, scaledLength } from "../../src/report/chart-scale.js";

/** value × units ÷ max rounded half up, in whole cents as integers: the exact answer. */
function exact(valueCents: bigint, maxCents: bigint, units: number): number {
  const n = valueCents * BigInt(units);
  return Number((2n * n + maxCents) / (2n * maxCents));
}

const money = (cents: bigint) => parseMoney(`${cents / 100n}.${String(cents % 100n).padStart(2, "0")}`);

describe("chart scale", () => {
  it("rounds value × units ÷ max half up exactly, at the halves too", () => {
    // 1 of 8 units at 40: 5 exactly; 3 of 16 at 40: 7.5 → 8; 1 of 80 at 40: 0.5 → 1 (and never under 1).
    expect(scaledLength(money(100n), money(800n), 40)).toBe(5);
    expect(scaledLength(money(300n), money(1600n), 40)).toBe(8);
    expect(scaledLength(money(100n), money(8000n), 40)).toBe(1);
    expect(scaledLength(money(2_499n), money(10_000n), 2)).toBe(1); // 0.4998 → 0, held at 1
    expect(scaledLength(money(37_499n), money(100_000n), 4)).toBe(1); // 1.49996 → 1
    expect(scaledLength(money(37_500n), money(100_000n), 4)).toBe(2); // 1.5 → 2
  });

  it("agrees with exact integer arithmetic on many values", () => {
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return BigInt(seed);
    };
    for (let i = 0; i < 5_000; i++) {
      const max = (next() % 100_000_000_000n) + 1n;
      const value = next() % (max + 1n);
      const units = Number(next() % 200n) + 1;
      const want = value === 0n ? 0 : Math.max(1, exact(value, max, units));
      expect(scaledLength(money(value), money(max), units)).toBe(want);
    }
    const bars = [money(1n), money(12_345n), money(99_999n)].map((value) => ({ label: "", value, text: "" }));
    expect(barLengths(bars, 40)).toEqual([1, exact(12_345n, 99_999n, 40), 40]);
  });
});
