import { describe, expect, it } from "vitest";
import { reportStart } from "../../src/console/page-others.js";

describe("the console report's period", () => {
  const now = new Date("2026-11-26T10:30:00Z");

  it("a period of days is that many calendar days in the time zone, today's included, from midnight", () => {
    // Lagos is UTC+1 all year: its midnight of 20 November is 23:00 UTC on the 19th.
    expect(reportStart("7d", now, "Africa/Lagos").toISOString()).toBe("2026-11-19T23:00:00.000Z");
    expect(reportStart("1d", now, "Africa/Lagos").toISOString()).toBe("2026-11-25T23:00:00.000Z");
    expect(reportStart("365d", now, "UTC").toISOString()).toBe("2025-11-27T00:00:00.000Z");
  });

  it("across a daylight-saving change, midnight is the zone's midnight of that day", () => {
    // New York left daylight saving time on 1 November 2026: its midnight of 28 October is 04:00 UTC.
    expect(reportStart("30d", now, "America/New_York").toISOString()).toBe("2026-10-28T04:00:00.000Z");
  });

  it("any other duration reaches back from now, and no period is longer than 366 days", () => {
    expect(reportStart("24h", now, "Africa/Lagos").toISOString()).toBe("2026-11-25T10:30:00.000Z");
    expect(reportStart("900d", now, "UTC").toISOString()).toBe("2025-11-26T00:00:00.000Z");
  });

  it("refuses a period of no time: 0d started tomorrow at midnight, after its own end", () => {
    for (const asked of ["0d", "0h", "0s"]) expect(() => reportStart(asked, now, "Africa/Lagos")).toThrow();
  });
});
