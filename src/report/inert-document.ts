// A report document with every piece of text from outside made inert for a terminal or a markdown viewer:
// control characters and bidi marks shown as escapes (src/text/inert.ts). Every format uses it (a bidi override
// reorders text in a browser too); HTML escapes markup on its own.
import { inert, inertLines } from "../text/inert.js";
import type { Block, ReportDocument } from "./document.js";

export function inertDocument(doc: ReportDocument): ReportDocument {
  return {
    title: inert(doc.title),
    facts: doc.facts.map(([label, value]) => [inert(label), inert(value)]),
    status: { ...doc.status, text: inertLines(doc.status.text) },
    sections: doc.sections.map((section) => ({
      ...section,
      title: inert(section.title),
      blocks: section.blocks.map(inertBlock),
    })),
  };
}

function inertBlock(block: Block): Block {
  switch (block.kind) {
    case "text":
      return { ...block, text: inertLines(block.text) };
    case "table":
      return {
        ...block,
        columns: block.columns.map((column) => ({ ...column, header: inert(column.header) })),
        rows: block.rows.map((row) => row.map(inert)),
      };
    default:
      return {
        ...block,
        title: inert(block.title),
        bars: block.bars.map((bar) => ({ ...bar, label: inert(bar.label), text: inert(bar.text) })),
      };
  }
}
