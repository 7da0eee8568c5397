// budgetDay remembers the last minute it answered for in each zone, which is exact only if no day starts inside a
// minute: checked here against ICU itself, zone by zone from 1980 on (every zone's offset in whole minutes, and
// where sampled days start), and against a fresh formatter at every instant asked around local midnights (DST
// changes, zones of 30 and 45 minutes, the date line).
import { describe, expect, it } from "vitest";
import { budgetDay } from "../../src/purchases/guards.js";
import { localTime } from "../../src/time/cron.js";

const direct = new Map<string, Intl.DateTimeFormat>();
function icuDay(ms: number, zone: string): string {
  let format = direct.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-CA", {
      timeZone: zone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
    });
    direct.set(zone, format);
  }
  return format.format(new Date(ms));
}

/** The first millisecond of the day after `ms`'s day, in `zone` (ICU's answer, found to the millisecond). */
function nextDayStart(ms: number, zone: string): number {
  const today = icuDay(ms, zone);
  let low = ms;
  let high = ms + 30 * 3_600_000;
  while (icuDay(high, zone) === today) high += 6 * 3_600_000;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (icuDay(middle, zone) === today) low = middle;
    else high = middle;
  }
  return high;
}

/** A fixed spread of instants over [from, to): the same every run. */
function spread(from: number, to: number, count: number, seed: number): number[] {
  let state = seed;
  return Array.from({ length: count }, () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return from + Math.floor((state / 2 ** 31) * (to - from));
  });
}

/** The zone's offset from UTC at `ms`, in seconds: ICU's wall clock to the second (src/time/cron.ts), less the instant. */
function offsetSeconds(ms: number, zone: string): number {
  const l = localTime(ms, zone);
  const wall = Date.UTC(l.year, l.month - 1, l.day, l.hour, l.minute, l.second);
  return (wall - Math.floor(ms / 1000) * 1000) / 1000;
}

describe("budgetDay", () => {
  it("every zone's offset is whole minutes from 1980 on, read every 3 months (an offset in seconds lasted years)", () => {
    const odd: string[] = [];
    for (const zone of Intl.supportedValuesOf("timeZone")) {
      for (let ms = Date.UTC(1980, 0, 1); ms < Date.UTC(2060, 0, 1); ms += 91 * 86_400_000) {
        const offset = offsetSeconds(ms, zone);
        if (offset % 60 !== 0) odd.push(`${zone} ${new Date(ms).toISOString()} ${offset}s`);
      }
    }
    expect(odd).toEqual([]);
    // The same reading finds Liberia's −0:44:30 of 1971.
    expect(offsetSeconds(Date.UTC(1971, 5, 1), "Africa/Monrovia")).toBe(-(44 * 60 + 30));
  });

  it("no zone starts a day inside a minute from 1980 on (what the memo of the last minute relies on)", () => {
    const zones = Intl.supportedValuesOf("timeZone");
    expect(zones.length).toBeGreaterThan(300);
    const odd: string[] = [];
    for (const [i, zone] of zones.entries()) {
      for (const ms of spread(Date.UTC(1980, 0, 1), Date.UTC(2060, 0, 1), 6, i + 1)) {
        const start = nextDayStart(ms, zone);
        if (start % 60_000 !== 0) odd.push(`${zone} ${new Date(start).toISOString()}`);
      }
    }
    expect(odd).toEqual([]);
  });

  it("answers as a fresh formatter does around local midnights and DST changes, asked in any order", () => {
    const zones = [
      "America/New_York",
      "Australia/Lord_Howe",
      "Asia/Kathmandu",
      "Pacific/Chatham",
      "Africa/Lagos",
    ];
    for (const zone of zones) {
      for (const ms of spread(Date.UTC(2020, 0, 1), Date.UTC(2030, 0, 1), 20, zone.length)) {
        const start = nextDayStart(ms, zone);
        // The minute before the day starts, its last millisecond, the start, and back: each as ICU says.
        for (const at of [start - 60_000, start - 1, start, start + 59_999, start - 1, start - 60_001]) {
          expect(budgetDay(new Date(at), zone), `${zone} ${new Date(at).toISOString()}`).toBe(
            icuDay(at, zone),
          );
        }
      }
    }
  });

  it("asks ICU directly before 1980, and for UTC reads the ISO date", () => {
    const monrovia = Date.UTC(1971, 5, 1, 0, 44, 15); // Liberia was −0:44:30 then: its day began mid-minute
    expect(budgetDay(new Date(monrovia), "Africa/Monrovia")).toBe(icuDay(monrovia, "Africa/Monrovia"));
    expect(budgetDay(new Date(monrovia + 30_000), "Africa/Monrovia")).toBe(
      icuDay(monrovia + 30_000, "Africa/Monrovia"),
    );
    expect(budgetDay(new Date(Date.UTC(2026, 10, 26, 23, 59, 59)), "UTC")).toBe("2026-11-26");
    expect(() => budgetDay(new Date(Number.NaN), "Africa/Lagos")).toThrow(RangeError);
  });
});
