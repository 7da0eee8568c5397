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
  | {
      kind: "chart";
      name: string;
      title: string;
      bars: ChartBar[];
      /** The stacked layers of every bar, bottom first (each bar's `parts` in this order). */
      layers?: ChartLayer[];
      /** A line across the chart, e.g. the daily limit. */
      limit?: { label: string; value: Money; text: string };
      /** Said instead of the chart when every bar is zero. */
      whenEmpty?: string;
    };

export interface ChartLayer {
  /** A stable name: the CSS class and `data-layer` of its segments. */
  name: string;
  label: string;
}

export interface ChartBar {
  label: string;
  /** The whole bar (the sum of its parts when it is stacked). */
  value: Money;
  /** The value as shown, e.g. "NGN 1,234.00". */
  text: string;
  /** One value per layer of the chart, in the layers' order. */
  parts?: Array<{ value: Money; text: string }>;
}

/** Every calendar day from `first` to `last` (YYYY-MM-DD, inclusive), so a chart's axis is true. */
export function everyDay(first: string, last: string): string[] {
  const days: string[] = [];
  const end = Date.parse(`${last}T00:00:00Z`);
  for (let t = Date.parse(`${first}T00:00:00Z`); t <= end; t += 86_400_000) {
    days.push(new Date(t).toISOString().slice(0, 10));
  }
  return days;
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
