import { describe, expect, it } from "vitest";
import { formatInstant } from "../../src/report/format.js";

/** The wall clock as Intl reads it at that instant, to the minute. */
function intl(instant: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-CA", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    })
      .formatToParts(instant)
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

describe("formatInstant", () => {
  const zones = [
    "UTC",
    "Africa/Lagos",
    "America/New_York",
    "Europe/London",
    "Australia/Lord_Howe",
    "Asia/Kathmandu",
  ];

  it("reads the wall clock as Intl does, around changes of the clocks too", () => {
    // Each minute of the hours around New York's, London's and Lord Howe's changes in 2026, and a year of random instants.
    const around = [
      Date.UTC(2026, 2, 8, 6),
      Date.UTC(2026, 10, 1, 5),
      Date.UTC(2026, 2, 29, 0),
      Date.UTC(2026, 3, 4, 14),
    ];
    const instants: number[] = [];
    for (const at of around) for (let m = -90; m <= 90; m++) instants.push(at + m * 60_000 + 17_000);
    let seed = 11;
    for (let i = 0; i < 2_000; i++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      instants.push(Date.UTC(2026, 0, 1) + (seed % 31_536_000) * 1000);
    }
    for (const zone of zones)
      for (const ms of instants) expect(formatInstant(new Date(ms), zone)).toBe(intl(new Date(ms), zone));
  });
});
