// Aligned tables for people and JSON for scripts: how reports and commands print data.
import { inert } from "../text/inert.js";

export interface Column<T> {
  header: string;
  value: (row: T) => string;
  align?: "left" | "right";
}

export function renderTable<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  // Cells hold text from outside (provider messages, references, network names): shown, never obeyed.
  const cells = rows.map((row) => columns.map((column) => inert(column.value(row))));
  const widths = columns.map((column, i) =>
    Math.max(column.header.length, ...cells.map((row) => row[i]!.length)),
  );
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
