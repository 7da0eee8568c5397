import { describe, expect, it } from "vitest";
import { formatInstant } from "../../src/report/format.js";

const formats = new Map<string, Intl.DateTimeFormat>();

/** The wall clock as Intl reads it at that instant, to the minute. */
function intl(instant: Date, timeZone: string): string {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-CA", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    });
    formats.set(timeZone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(instant).map((p) => [p.type, p.value]));
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

/** Whether another instant within an hour either side reads the same wall clock (a repeated hour or half hour). */
function repeated(ms: number, timeZone: string): boolean {
  const shown = intl(new Date(ms), timeZone);
  return [-60, -30, 30, 60].some((m) => intl(new Date(ms + m * 60_000), timeZone) === shown);
}

/** The offset Intl gives at that instant, as "+01:00". */
function intlOffset(instant: Date, timeZone: string): string {
  const name = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" })
    .formatToParts(instant)
    .find((p) => p.type === "timeZoneName")!.value;
  return name === "GMT" ? "+00:00" : name.replace("GMT", "");
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

  it("reads the wall clock as Intl does, around changes of the clocks too; a time shown twice names its offset", () => {
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
    let twice = 0;
    for (const zone of zones)
      for (const ms of instants) {
        const wall = intl(new Date(ms), zone);
        const expected = repeated(ms, zone) ? `${wall} (${intlOffset(new Date(ms), zone)})` : wall;
        if (expected !== wall) twice++;
        expect(formatInstant(new Date(ms), zone)).toBe(expected);
      }
    expect(twice).toBeGreaterThan(100); // New York's, London's and Lord Howe's repeated hours were among them
  });

  it("tells the two readings of New York's repeated 01:30 apart, and leaves the rest of the night alone", () => {
    const at = (iso: string) => formatInstant(new Date(iso), "America/New_York");
    expect(at("2026-11-01T04:30:00Z")).toBe("2026-11-01 00:30");
    expect(at("2026-11-01T05:30:00Z")).toBe("2026-11-01 01:30 (-04:00)");
    expect(at("2026-11-01T06:30:00Z")).toBe("2026-11-01 01:30 (-05:00)");
    expect(at("2026-11-01T07:30:00Z")).toBe("2026-11-01 02:30");
    expect(formatInstant(new Date("2026-10-04T14:30:00Z"), "Australia/Lord_Howe")).toBe("2026-10-05 01:30");
    expect(formatInstant(new Date("2026-04-04T14:45:00Z"), "Australia/Lord_Howe")).toBe(
      "2026-04-05 01:45 (+11:00)",
    );
    expect(formatInstant(new Date("2026-04-04T15:15:00Z"), "Australia/Lord_Howe")).toBe(
      "2026-04-05 01:45 (+10:30)",
    );
  });
});
