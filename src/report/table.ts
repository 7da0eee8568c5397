// Aligned tables for people and JSON for scripts: how reports and commands print data.
import { inert } from "../text/inert.js";
import { cutText } from "../text/storable.js";

/**
 * The most of one value a table cell shows, with "…" after it: room for the longest reason topsync writes, not for
 * a 100,000-character plan id a CRM put in an intake row, which made every row of `purchases list` that wide.
 * JSON and CSV output carry values whole.
 */
const MAX_CELL_CHARS = 300;

function cell(value: string): string {
  const shown = inert(value);
  return shown.length > MAX_CELL_CHARS ? `${cutText(shown, MAX_CELL_CHARS - 1)}…` : shown;
}

export interface Column<T> {
  header: string;
  value: (row: T) => string;
  align?: "left" | "right";
}

export function renderTable<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  // Cells hold text from outside (provider messages, references, network names): shown, never obeyed.
  const cells = rows.map((row) => columns.map((column) => cell(column.value(row))));
  // A loop, not Math.max(...cells): spreading a million rows into one call overflows the stack.
  const widths = columns.map((column) => column.header.length);
  for (const row of cells) {
    for (let i = 0; i < row.length; i++) widths[i] = Math.max(widths[i]!, row[i]!.length);
  }
  const line = (values: string[]) =>
    values
      .map((value, i) =>
        columns[i]!.align === "right" ? value.padStart(widths[i]!) : value.padEnd(widths[i]!),
      )
      .join("  ")
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...cells.map(line)].join("\n") + "\n";
}

export function renderJson(value: unknown): string {
  return `${JSON.stringify(value, jsonReplacer, 2)}\n`;
}

/** Money (big.js) prints as its exact decimal string, bigints as strings. */
function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  return value;
}
