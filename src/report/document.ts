// A report as the readable formats see it (text, markdown, html): a title, a few facts, a status line and
// sections of paragraphs, tables and one chart. Values are already formatted and masked here.
import type { Money } from "../money.js";

export interface DocColumn {
  header: string;
  align?: "left" | "right";
}

export type Tone = "ok" | "note" | "warning" | "error";

export type Block =
  | { kind: "text"; text: string; tone?: Tone }
  | {
      kind: "table";
      /** A stable name (used as the HTML table's id and class), e.g. "fires". */
      name: string;
      columns: DocColumn[];
      rows: string[][];
      /** Rows left out of the readable formats (the JSON has them all). */
      omitted: number;
    }
  | { kind: "chart"; name: string; title: string; bars: ChartBar[] };

export interface ChartBar {
  label: string;
  value: Money;
  /** The value as shown, e.g. "NGN 1,234.00". */
  text: string;
}

export interface DocSection {
  id: string;
  title: string;
  blocks: Block[];
}

export interface ReportDocument {
  title: string;
  facts: Array<[label: string, value: string]>;
  status: { tone: Tone; text: string };
  sections: DocSection[];
}

/** Rows a table shows in the readable formats before it says how many more there are. */
export const MAX_TABLE_ROWS = 200;

export function table(name: string, columns: DocColumn[], rows: string[][]): Block {
  return {
    kind: "table",
    name,
    columns,
    rows: rows.slice(0, MAX_TABLE_ROWS),
    omitted: Math.max(0, rows.length - MAX_TABLE_ROWS),
  };
}

export function text(value: string, tone?: Tone): Block {
  return tone ? { kind: "text", text: value, tone } : { kind: "text", text: value };
}

export function left(header: string): DocColumn {
  return { header };
}

export function right(header: string): DocColumn {
  return { header, align: "right" };
}

/** The sentence under a table that was cut short. */
export function omittedNote(omitted: number): string {
  return `… and ${omitted} more ${omitted === 1 ? "row" : "rows"} (--format json has them all)`;
}
