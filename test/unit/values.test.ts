import { describe, expect, it } from "vitest";
import { formatDuration, parseDuration } from "../../src/duration.js";
import { formatMoney, parseMoney, sumMoney } from "../../src/money.js";
import { formatSizeMb, parseSizeMb } from "../../src/reseller/size.js";

describe("plan sizes", () => {
  it.each([
    ["500", 500],
    ["1GB", 1024],
    ["1.5GB", 1536],
    ["500MB", 500],
    ["1.0GB", 1024],
    ["2 GB", 2048],
    ["10gb", 10240],
  ])("reads %s as %i MB", (text, mb) => {
    expect(parseSizeMb(text)).toBe(mb);
  });

  it.each(["Unlimited", "1GB+1GB", "", "GB"])("keeps %j unreadable instead of guessing", (text) => {
    expect(parseSizeMb(text)).toBeNull();
  });

  it("writes sizes back the way plans name them", () => {
    expect([formatSizeMb(500), formatSizeMb(1024), formatSizeMb(1536)]).toEqual(["500MB", "1GB", "1.5GB"]);
  });
});

describe("money", () => {
  it("adds without float error", () => {
    const total = sumMoney(["0.10", "0.20", "305.00"].map(parseMoney));
    expect(formatMoney(total)).toBe("305.30");
  });

  it("refuses what is not a decimal amount", () => {
    expect(() => parseMoney("12,5x")).toThrow(/not a decimal amount/);
    expect(() => parseMoney("1e3")).toThrow(/not a decimal amount/);
  });
});

describe("durations", () => {
  it.each([
    ["500ms", 500],
    ["30s", 30_000],
    ["10m", 600_000],
    ["24h", 86_400_000],
    ["1h30m", 5_400_000],
    ["7d", 604_800_000],
  ])("reads %s", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(["30", "ten minutes", "5 x", "-1s", ""])("refuses %j with an example of the format", (text) => {
    expect(() => parseDuration(text)).toThrow(/use a number and a unit/);
  });

  it("prints durations compactly", () => {
    expect([formatDuration(90_000), formatDuration(250), formatDuration(86_400_000)]).toEqual([
      "1m30s",
      "250ms",
      "1d",
    ]);
  });
});
