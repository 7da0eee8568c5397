// A statement's cells are read exactly in the format the export is declared to write, or refused with the
// reason; and the statement's period is its bulk, not stretched by a line dated 1970 or 2100.
import { describe, expect, it } from "vitest";
import { readStatementAmount, readStatementDate } from "../../src/purchases/sources/statement-cells.js";
import { PERIOD_GAP_MS, statementPeriod } from "../../src/purchases/sources/statement-csv.js";

const amount = (text: string, decimalComma = false) => {
  const read = readStatementAmount(text, decimalComma);
  return read.ok ? read.value : `refused: ${read.reason}`;
};
const date = (text: string, format: "ISO" | "DD/MM/YYYY" = "ISO", zone = "Africa/Lagos") => {
  const read = readStatementDate(text, format, zone);
  return read.ok ? read.value.toISOString() : `refused: ${read.reason}`;
};

describe("statement amounts", () => {
  it("reads thousands separators only where they separate thousands, and currency signs", () => {
    expect(amount("1,405.00")).toBe("1405.00");
    expect(amount("1,234,567.5")).toBe("1234567.50");
    expect(amount("₦1,405.00")).toBe("1405.00");
    expect(amount("N305")).toBe("305.00");
    expect(amount("NGN 168.00")).toBe("168.00");
    expect(amount("168.00 NGN")).toBe("168.00");
    expect(amount("1 405.00")).toBe("1405.00");
    expect(amount("305")).toBe("305.00");
  });

  it("refuses what it would have to guess: a comma that is not a thousands separator, 3 decimals, a sign", () => {
    expect(amount("168,00")).toMatch(
      /^refused: has a comma that does not separate thousands.*--decimal-comma/,
    );
    expect(amount("1.000,00")).toMatch(/^refused: has a comma that does not separate thousands/);
    expect(amount("16,8")).toMatch(/^refused: has a comma that does not separate thousands/);
    expect(amount("1,40,500.00")).toMatch(/^refused: has a comma/);
    expect(amount("1,405.5,0")).toMatch(/^refused/);
    expect(amount("168.005")).toBe("refused: has more than two decimals");
    expect(amount("-168")).toBe("refused: is negative (a statement line is a debit)");
    expect(amount("₦-168.00")).toBe("refused: is negative (a statement line is a debit)");
    expect(amount("(168.00)")).toBe("refused: is negative (a statement line is a debit)");
    expect(amount("1e3")).toBe("refused: is not an amount");
    expect(amount(".50")).toBe("refused: is not an amount");
    expect(amount("")).toBe("refused: is empty");
    expect(amount("1,000,000,000,000.00")).toBe("refused: is larger than the ledger's money columns hold");
  });

  it("reads decimal commas only when the export is declared to write them", () => {
    expect(amount("168,00", true)).toBe("168.00");
    expect(amount("1.000,00", true)).toBe("1000.00");
    expect(amount("16,8", true)).toBe("16.80");
    expect(amount("1.405", true)).toBe("1405.00");
    expect(amount("₦ 1 405,50", true)).toBe("1405.50");
    expect(amount("168,005", true)).toBe("refused: has more than two decimals");
    expect(amount("1,405", true)).toBe("refused: has more than two decimals");
    expect(amount("168.00", true)).toMatch(/^refused: has a point before its last digits/);
    expect(amount("-168,00", true)).toBe("refused: is negative (a statement line is a debit)");
  });
});

describe("statement dates", () => {
  it("reads ISO 8601 by default, a time without a zone in the zone given", () => {
    expect(date("2026-11-05T10:00:00Z")).toBe("2026-11-05T10:00:00.000Z");
    expect(date("2026-11-05T10:00:00+01:00")).toBe("2026-11-05T09:00:00.000Z");
    expect(date("2026-11-05 10:00:00.25 +0100")).toBe("2026-11-05T09:00:00.250Z");
    expect(date("2026-11-05 10:00")).toBe("2026-11-05T09:00:00.000Z"); // Lagos, UTC+1
    expect(date("2026-11-05 10:00", "ISO", "UTC")).toBe("2026-11-05T10:00:00.000Z");
    expect(date("2026-11-05")).toBe("2026-11-04T23:00:00.000Z"); // the start of the day in Lagos
  });

  it("refuses what is not an ISO date: a bare number, a day-first date, a day not on the calendar", () => {
    expect(date("1")).toMatch(/^refused: is not an ISO 8601 date.*--date-format DD\/MM\/YYYY/);
    expect(date("05/11/2026")).toMatch(/^refused: is not an ISO 8601 date/);
    expect(date("2026-02-30")).toBe("refused: is not a date on the calendar");
    expect(date("2026-11-05T24:00:00Z")).toBe("refused: is not a date on the calendar");
    expect(date("2026-11-05T10:00:00+15:00")).toBe("refused: has a zone offset out of range (+15:00)");
    expect(date("")).toBe("refused: is empty");
  });

  it("reads DD/MM/YYYY when declared: 05/11/2026 is the 5th of November, in the zone given", () => {
    expect(date("05/11/2026", "DD/MM/YYYY")).toBe("2026-11-04T23:00:00.000Z");
    expect(date("05/11/2026 10:00", "DD/MM/YYYY")).toBe("2026-11-05T09:00:00.000Z");
    expect(date("5/11/2026 14:03:22", "DD/MM/YYYY")).toBe("2026-11-05T13:03:22.000Z");
    expect(date("05/11/2026, 2:03 PM", "DD/MM/YYYY")).toBe("2026-11-05T13:03:00.000Z");
    expect(date("05/11/2026 12:30 AM", "DD/MM/YYYY")).toBe("2026-11-04T23:30:00.000Z");
    expect(date("05/11/2026 10:00 +00:00", "DD/MM/YYYY")).toBe("2026-11-05T10:00:00.000Z");
    expect(date("13/25/2026", "DD/MM/YYYY")).toBe("refused: is not a date on the calendar");
    expect(date("31/11/2026", "DD/MM/YYYY")).toBe("refused: is not a date on the calendar");
    expect(date("05/11/2026 13:00 PM", "DD/MM/YYYY")).toBe("refused: has an hour of 13 with PM");
    expect(date("2026-11-05", "DD/MM/YYYY")).toBe(
      "refused: is an ISO 8601 date, but the statement is declared to write DD/MM/YYYY",
    );
    expect(date("1", "DD/MM/YYYY")).toMatch(/^refused: is not a DD\/MM\/YYYY date/);
  });

  it("refuses a time the zone's clocks skip, and reads each side of a change", () => {
    expect(date("2026-03-08 02:30", "ISO", "America/New_York")).toBe(
      "refused: is a time America/New_York's clocks skip",
    );
    expect(date("2026-03-08 01:30", "ISO", "America/New_York")).toBe("2026-03-08T06:30:00.000Z");
    expect(date("2026-03-08 03:30", "ISO", "America/New_York")).toBe("2026-03-08T07:30:00.000Z");
  });
});

describe("the statement's period", () => {
  const day = (iso: string) => Date.parse(`${iso}T12:00:00Z`);
  const period = (days: string[], now = "2026-12-01") => {
    const found = statementPeriod(Float64Array.from(days.map(day)), days.length, day(now));
    return (
      found &&
      [new Date(found.from).toISOString(), new Date(found.to).toISOString()].map((t) => t.slice(0, 10))
    );
  };

  it("is the bulk of the lines: a placeholder 1970 or a year typed 2100 does not stretch it", () => {
    expect(period(["2026-11-05", "1970-01-01", "2026-11-20", "2100-01-01", "2026-11-01"])).toEqual([
      "2026-11-01",
      "2026-11-20",
    ]);
    expect(period(["2026-11-05"])).toEqual(["2026-11-05", "2026-11-05"]);
    expect(period([])).toBeNull();
  });

  it("spans months of daily lines, breaks only where a month passes without one, and on a tie is the nearest now", () => {
    const year = Array.from({ length: 365 }, (_, i) =>
      new Date(day("2026-01-01") + i * 86_400_000).toISOString().slice(0, 10),
    );
    expect(period(year, "2027-01-01")).toEqual(["2026-01-01", "2026-12-31"]);
    expect(PERIOD_GAP_MS).toBe(31 * 86_400_000);
    expect(period(["2026-01-01", "2026-02-01"])).toEqual(["2026-01-01", "2026-02-01"]); // 31 days apart
    expect(period(["1970-01-01", "2026-11-05"])).toEqual(["2026-11-05", "2026-11-05"]);
    expect(period(["2100-01-01", "2026-11-05"])).toEqual(["2026-11-05", "2026-11-05"]);
  });
});
