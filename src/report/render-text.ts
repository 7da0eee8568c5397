// A report as aligned tables for a terminal: the title underlined, facts, the status, then each section.

import { barLengths } from "./chart-scale.js";
import { type Block, omittedNote, type ReportDocument } from "./document.js";
import { renderTable } from "./table.js";

const BAR_WIDTH = 40;

export function renderText(doc: ReportDocument): string {
  const out: string[] = [doc.title, "=".repeat(doc.title.length)];
  const width = Math.max(...doc.facts.map(([label]) => label.length));
  for (const [label, value] of doc.facts) out.push(`${label.padEnd(width)}  ${value}`);
  out.push("", `${doc.status.tone === "error" ? "INCOMPLETE: " : ""}${doc.status.text}`);
  for (const section of doc.sections) {
    out.push("", section.title, "-".repeat(section.title.length));
    for (const block of section.blocks) out.push(...blockLines(block));
  }
  return `${out.join("\n")}\n`;
}

function blockLines(block: Block): string[] {
  if (block.kind === "text") return [block.tone === "warning" ? `! ${block.text}` : block.text];
  if (block.kind === "table") {
    const columns = block.columns.map((column, i) => ({
      header: column.header.toUpperCase(),
      align: column.align,
      value: (row: string[]) => row[i] ?? "",
    }));
    const lines = renderTable(block.rows, columns).trimEnd().split("\n");
    return block.omitted > 0 ? [...lines, omittedNote(block.omitted)] : lines;
  }
  const lengths = barLengths(block.bars, BAR_WIDTH);
  const labelWidth = Math.max(...block.bars.map((bar) => bar.label.length));
  return [
    `${block.title}:`,
    ...block.bars.map(
      (bar, i) =>
        `  ${bar.label.padEnd(labelWidth)}  ${"█".repeat(lengths[i]!).padEnd(BAR_WIDTH)}  ${bar.text}`,
    ),
  ];
}
