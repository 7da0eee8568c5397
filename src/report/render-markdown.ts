// A report as Markdown to paste into a chat or a pull request: headings, GitHub tables (pipes escaped), the
// chart as a table with text bars.
import { barLengths } from "./chart-scale.js";
import { type Block, omittedNote, type ReportDocument } from "./document.js";

const BAR_WIDTH = 20;

export function renderMarkdown(doc: ReportDocument): string {
  const out: string[] = [`# ${cell(doc.title)}`, ""];
  for (const [label, value] of doc.facts) out.push(`- **${cell(label)}:** ${cell(value)}`);
  const mark =
    doc.status.tone === "error" ? "**INCOMPLETE:** " : doc.status.tone === "warning" ? "**Note:** " : "";
  out.push("", `> ${mark}${cell(doc.status.text)}`);
  for (const section of doc.sections) {
    out.push("", `## ${cell(section.title)}`);
    for (const block of section.blocks) out.push("", ...blockLines(block));
  }
  return `${out.join("\n")}\n`;
}

function blockLines(block: Block): string[] {
  if (block.kind === "text") return [block.tone === "warning" ? `⚠️ ${cell(block.text)}` : cell(block.text)];
  if (block.kind === "table") {
    const lines = [
      `| ${block.columns.map((c) => cell(c.header)).join(" | ")} |`,
      `|${block.columns.map((c) => (c.align === "right" ? " ---: " : " --- ")).join("|")}|`,
      ...block.rows.map((row) => `| ${row.map(cell).join(" | ")} |`),
    ];
    return block.omitted > 0 ? [...lines, "", `_${omittedNote(block.omitted)}_`] : lines;
  }
  const lengths = barLengths(block.bars, BAR_WIDTH);
  return [
    `**${cell(block.title)}**`,
    "",
    "| Day | Amount | |",
    "| --- | ---: | --- |",
    ...block.bars.map((bar, i) => `| ${cell(bar.label)} | ${cell(bar.text)} | ${"█".repeat(lengths[i]!)} |`),
  ];
}

/** Text safe inside a table cell or a line: pipes, markup characters and line breaks neutralised. */
function cell(value: string): string {
  return value
    .replace(/\\/g, "\\\\")
    .replace(/\|/g, "\\|")
    .replace(/([*`<[\]])/g, "\\$1")
    .replace(/\r?\n/g, " ");
}
