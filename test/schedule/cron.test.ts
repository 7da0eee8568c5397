// The plan's fire arithmetic (src/time/cron.ts) against node-cron's own scheduler: the instants its
// TimeMatcher.getNextMatch walks to, one after another, are the instants the daemon's Runner fires at.
import { createTask } from "node-cron";
import { describe, expect, it } from "vitest";
import {
  cronFiresBefore,
  cronFiresBetween,
  cronLatestFire,
  cronNextFire,
  restrictsBothDayFields,
} from "../../src/time/cron.js";

interface Walker {
  getNextMatch(date: Date): Date;
  match(date: Date): boolean;
}

/** node-cron's TimeMatcher inside a task: what its Runner calls to find the next fire. */
function nodeCronMatcher(expression: string, timeZone: string): Walker {
  const task = createTask(expression, () => {}, { timezone: timeZone });
  void task.destroy();
  return (task as unknown as { timeMatcher: Walker }).timeMatcher;
}

/** The daemon's fires in (from, to]: node-cron's next match, again and again. */
function daemonFires(expression: string, timeZone: string, from: Date, to: Date): Date[] {
  const matcher = nodeCronMatcher(expression, timeZone);
  const fires: Date[] = [];
  for (let t = matcher.getNextMatch(from); t.getTime() <= to.getTime(); t = matcher.getNextMatch(t)) {
    fires.push(t);
  }
  return fires;
}

const iso = (dates: Date[]) => dates.map((d) => d.toISOString());

// Expressions × zones × windows, chosen to cross month ends, a leap day and both DST changes of 2027.
const EXPRESSIONS = [
  "0 8 * * *",
  "*/15 9-17 * * 1-5",
  "0 0 1,15 * 3",
  "30 2 * * *",
  "30 1 * * *",
  "0,30 * * * *",
  "0 0 L * *",
  "0 12 LW * *",
  "0 6 L-3 * *",
  "0 9 15W * *",
  "0 7 * * 5L",
  "0 7 * * 1#2",
  "0 0 29 2 *",
  "0 0 * 2 1",
  "5 4 * * sun",
  "0 0 1 jan-mar *",
  "@hourly",
  "@weekly",
  "*/20 5 */7 * * *",
  "15,45 30 2 * * *",
  "0 0 12 1-7 * 1",
];
const ZONES = ["UTC", "Africa/Lagos", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe"];
const WINDOWS: [string, string][] = [
  ["2027-02-20T00:00:00.000Z", "2027-04-05T00:00:00.000Z"],
  ["2027-10-25T13:17:42.500Z", "2027-11-10T00:00:00.000Z"],
  ["2028-02-25T00:00:00.000Z", "2028-03-02T00:00:00.000Z"],
];

describe("cron fires agree with node-cron's scheduler", () => {
  for (const expression of EXPRESSIONS) {
    it(`"${expression}"`, () => {
      let compared = 0;
      for (const zone of ZONES) {
        for (const [a, b] of WINDOWS) {
          const from = new Date(a);
          const to = new Date(b);
          const expected = daemonFires(expression, zone, from, to);
          expect(iso(cronFiresBetween(expression, zone, from, to)), `${zone} ${a}`).toEqual(iso(expected));
          expect(
            iso(cronFiresBefore(expression, zone, new Date(to.getTime() + 1), from)),
            `${zone} ${a} backwards`,
          ).toEqual(iso([...expected].reverse()));
          compared += expected.length;
        }
      }
      expect(compared).toBeGreaterThan(0);
    });
  }

  it("fires at the instants node-cron's matcher accepts (UTC, minute by minute)", () => {
    const from = new Date("2027-03-01T00:00:00Z");
    const to = new Date("2027-03-04T00:00:00Z");
    for (const expression of ["*/15 9-17 * * 1-5", "0 0 1,15 * 3", "7 */3 * * *", "0 0 * * 1#1"]) {
      const matcher = nodeCronMatcher(expression, "UTC");
      const scanned: string[] = [];
      for (let t = from.getTime() + 60_000; t <= to.getTime(); t += 60_000) {
        if (matcher.match(new Date(t))) scanned.push(new Date(t).toISOString());
      }
      expect(iso(cronFiresBetween(expression, "UTC", from, to)), expression).toEqual(scanned);
    }
  });
});

describe("cron day fields", () => {
  it("day-of-month and day-of-week must both match, as node-cron 4 requires", () => {
    // Wednesday the 1st or 15th: 2027-09-01 and 2027-12-01 are such days; a Wednesday alone is not enough.
    const fires = cronFiresBetween(
      "0 0 1,15 * 3",
      "UTC",
      new Date("2027-08-01T00:00:00Z"),
      new Date("2028-01-01T00:00:00Z"),
    );
    expect(iso(fires)).toEqual([
      "2027-09-01T00:00:00.000Z",
      "2027-09-15T00:00:00.000Z",
      "2027-12-01T00:00:00.000Z",
      "2027-12-15T00:00:00.000Z",
    ]);
    const matcher = nodeCronMatcher("0 0 1,15 * 3", "UTC");
    expect(matcher.match(new Date("2027-08-04T00:00:00Z"))).toBe(false); // a Wednesday, not the 1st or 15th
    expect(matcher.match(new Date("2027-08-01T00:00:00Z"))).toBe(false); // the 1st, a Sunday
  });

  it("knows when both day fields are restricted", () => {
    expect(restrictsBothDayFields("0 0 1,15 * 3")).toBe(true);
    expect(restrictsBothDayFields("0 0 0 L * 5L")).toBe(true);
    expect(restrictsBothDayFields("0 0 1,15 * *")).toBe(false);
    expect(restrictsBothDayFields("0 0 ? * 3")).toBe(false);
    expect(restrictsBothDayFields("@weekly")).toBe(false);
  });
});

describe("single fires", () => {
  it("finds the next fire years ahead and the latest fire within a window", () => {
    expect(cronNextFire("0 0 29 2 1", "UTC", new Date("2026-11-23T00:00:00Z"))?.toISOString()).toBe(
      "2044-02-29T00:00:00.000Z",
    );
    const now = new Date("2027-03-03T10:07:30.250Z");
    expect(cronLatestFire("*/5 * * * *", "UTC", now, 3_600_000)?.toISOString()).toBe(
      "2027-03-03T10:05:00.000Z",
    );
    expect(cronLatestFire("0 0 1 * *", "UTC", now, 86_400_000)).toBeUndefined();
    expect(
      cronLatestFire("30 7 10 * * *", "UTC", new Date("2027-03-03T10:07:30.000Z"), 1000)?.toISOString(),
    ).toBe("2027-03-03T10:07:30.000Z");
  });

  it("stops at the limit", () => {
    const fires = cronFiresBetween(
      "* * * * * *",
      "UTC",
      new Date("2027-01-01T00:00:00Z"),
      new Date("2027-04-01T00:00:00Z"),
      501,
    );
    expect(fires).toHaveLength(501);
    expect(fires[500]?.toISOString()).toBe("2027-01-01T00:08:21.000Z");
  });
});
