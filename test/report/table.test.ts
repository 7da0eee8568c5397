// Tables for people: cells hold text from outside, of any length, in any number of rows.
import { describe, expect, it } from "vitest";
import { renderTable } from "../../src/report/table.js";

describe("renderTable", () => {
  it("cuts a cell past 300 characters, so one long value does not widen every row", () => {
    // Before, a 100,000-character plan id (an intake row's) made every row of `purchases list` that wide.
    const rows = [{ plan: "1".repeat(100_000) }, { plan: "102" }];
    const lines = renderTable(rows, [{ header: "PLAN", value: (r) => r.plan }]).split("\n");
    expect(lines[1]).toBe(`${"1".repeat(299)}…`);
    expect(lines[2]).toBe("102");
  });

  it("renders 300,000 rows (the widths are not one call's arguments)", () => {
    // Before: Math.max(...cells) with a call's arguments past the stack's room, RangeError.
    const rows = Array.from({ length: 300_000 }, (_, i) => ({ id: String(i) }));
    const text = renderTable(rows, [{ header: "ID", value: (r) => r.id, align: "right" }]);
    expect(text.split("\n")).toHaveLength(300_002);
    expect(text.split("\n")[1]).toBe("     0");
  });
});
