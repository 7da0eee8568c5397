import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  renderJson,
  renderTable
} from "./chunk-PKFIHURA.js";
import {
  inert,
  inertLines
} from "./chunk-IIT3DDOC.js";
import {
  omittedNote
} from "./chunk-R6NDLW6F.js";
import {
  ZERO
} from "./chunk-57HFVDAX.js";

// dist/report/inert-document.js
function inertDocument(doc) {
  return {
    title: inert(doc.title),
    facts: doc.facts.map(([label, value]) => [inert(label), inert(value)]),
    status: { ...doc.status, text: inertLines(doc.status.text) },
    sections: doc.sections.map((section) => ({
      ...section,
      title: inert(section.title),
      blocks: section.blocks.map(inertBlock)
    }))
  };
}
function inertBlock(block) {
  switch (block.kind) {
    case "text":
      return { ...block, text: inertLines(block.text) };
    case "table":
      return {
        ...block,
        columns: block.columns.map((column) => ({ ...column, header: inert(column.header) })),
        rows: block.rows.map((row) => row.map(inert))
      };
    default:
      return {
        ...block,
        title: inert(block.title),
        bars: block.bars.map((bar) => ({ ...bar, label: inert(bar.label), text: inert(bar.text) }))
      };
  }
}

// dist/report/chart-scale.js
function barLengths(bars, units) {
  const max = bars.reduce((m, bar) => bar.value.gt(m) ? bar.value : m, ZERO);
  if (max.lte(0))
    return bars.map(() => 0);
  return bars.map((bar) => {
    if (bar.value.lte(0))
      return 0;
    return Math.max(1, Number(bar.value.div(max).times(units).round(0, 1).toFixed(0)));
  });
}
function scaledLength(value, max, units) {
  if (max.lte(0) || value.lte(0))
    return 0;
  return Math.max(1, Number(value.div(max).times(units).round(0, 1).toFixed(0)));
}

// dist/report/render-html.js
var CSS = `
:root { color-scheme: light; --fg: #1d232a; --muted: #5b6570; --line: #d8dde3; --bar: #2f6fb3; }
* { box-sizing: border-box; }
body { margin: 0 auto; padding: 16px; max-width: 1440px; color: var(--fg); background: #fff;
  font: 15px/1.45 -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; }
h1 { font-size: 1.45em; margin: 0 0 8px; }
h2 { font-size: 1.15em; margin: 28px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0 0 12px; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
p { margin: 8px 0; overflow-wrap: anywhere; }
.status { padding: 10px 12px; border-radius: 6px; border-left: 5px solid; }
.tone-ok { background: #eaf6ec; border-color: #2e8540; }
.tone-note { background: #eef3f9; border-color: #2f6fb3; }
.tone-warning { background: #fff6e0; border-color: #c98a00; }
.tone-error { background: #fdecea; border-color: #c0392b; font-weight: 600; }
p.tone-warning, p.tone-error { padding: 6px 10px; border-radius: 4px; border-left: 4px solid; }
.scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; max-width: 100%;
  /* Shadows at an edge with more table behind it (they scroll away with the content at its ends). */
  background: linear-gradient(to right, #fff 30%, rgba(255,255,255,0)) left / 28px 100% no-repeat local,
    linear-gradient(to left, #fff 30%, rgba(255,255,255,0)) right / 28px 100% no-repeat local,
    radial-gradient(farthest-side at 0 50%, rgba(0,0,0,.22), rgba(0,0,0,0)) left / 12px 100% no-repeat scroll,
    radial-gradient(farthest-side at 100% 50%, rgba(0,0,0,.22), rgba(0,0,0,0)) right / 12px 100% no-repeat scroll; }
.scroll table { background: transparent; }
p.scroll-hint { display: none; margin: 6px 0 0; color: var(--muted); font-size: 0.85em; }
table { border-collapse: collapse; margin: 4px 0 8px; font-size: 0.93em; }
th, td { padding: 5px 9px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top;
  white-space: nowrap; }
td.wrap { white-space: normal; min-width: 12em; max-width: 30em; overflow-wrap: anywhere; }
table.narrow td { white-space: normal; overflow-wrap: anywhere; }
th { background: #f3f5f7; white-space: nowrap; }
td.num, th.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
tbody tr:nth-child(even) td { background: rgba(0,0,0,.018); }
p.omitted { color: var(--muted); font-style: italic; }
figure.chart { margin: 8px 0 12px; }
figure.chart svg { width: 100%; height: auto; display: block; }
figure.chart figcaption { color: var(--muted); font-size: 0.9em; }
svg .bar { fill: var(--bar); }
svg .bar.stacked { fill: none; stroke: rgba(0,0,0,.25); stroke-width: 0.5; }
.seg-committed { fill: #9aa9ba; background: #9aa9ba; }
.seg-planned { fill: var(--bar); background: var(--bar); }
.seg-succeeded { fill: #2e8540; background: #2e8540; }
.seg-unsettled { fill: #d9a21b; background: #d9a21b; }
.seg-failed { fill: #c0392b; background: #c0392b; }
svg line.limit { stroke: #c0392b; stroke-width: 1.5; stroke-dasharray: 6 4; }
svg text.limit-label { fill: #c0392b; }
.legend { display: inline-flex; flex-wrap: wrap; gap: 4px 12px; margin-right: 10px; }
.key { white-space: nowrap; }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 4px; border-radius: 2px; }
.swatch.limit { height: 0; border-top: 2px dashed #c0392b; vertical-align: middle; }
p.chart-empty { color: var(--muted); font-style: italic; }
svg .axis { stroke: var(--line); }
svg text { fill: var(--muted); font: 11px sans-serif; }
@media (max-width: 600px) {
  body { padding: 10px; font-size: 14px; }
  th, td { padding: 4px 6px; }
  dl.facts { grid-template-columns: 1fr; }
  dl.facts dd { margin-bottom: 4px; }
  p.scroll-hint { display: block; }
}
`;
function renderHtml(doc) {
  const body = [
    `<h1>${html(doc.title)}</h1>`,
    `<dl class="facts">${doc.facts.map(([k, v]) => `<dt>${html(k)}</dt><dd>${html(v)}</dd>`).join("")}</dl>`,
    `<p id="status" class="status tone-${doc.status.tone}">${doc.status.tone === "error" ? "INCOMPLETE: " : ""}${html(doc.status.text)}</p>`,
    ...doc.sections.map((section) => `<section id="${attr(section.id)}">
<h2>${html(section.title)}</h2>
${section.blocks.map(blockHtml).join("\n")}
</section>`)
  ];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="generator" content="topsync">
<title>${html(doc.title)}</title>
<style>${CSS}</style>
</head>
<body>
${body.join("\n")}
</body>
</html>
`;
}
var WRAP_AFTER = 28;
function blockHtml(block) {
  if (block.kind === "text") {
    return `<p${block.tone ? ` class="tone-${block.tone}"` : ""}>${html(block.text)}</p>`;
  }
  if (block.kind === "table") {
    const wraps = block.columns.map((_, i) => block.rows.some((row) => (row[i]?.length ?? 0) > WRAP_AFTER));
    const cls = (i, cell2) => block.columns[i]?.align === "right" ? ' class="num"' : cell2 && wraps[i] ? ' class="wrap"' : "";
    const head = block.columns.map((c, i) => `<th scope="col"${cls(i, false)}>${html(c.header)}</th>`).join("");
    const rows = block.rows.map((row) => `<tr>${row.map((value, i) => `<td${cls(i, true)}>${html(value)}</td>`).join("")}</tr>`).join("\n");
    const omitted = block.omitted > 0 ? `
<p class="omitted">${html(omittedNote(block.omitted))}</p>` : "";
    const narrow = block.columns.length <= 3;
    const hint = narrow ? "" : `<p class="scroll-hint" id="hint-${attr(block.name)}">${block.columns.length} columns: swipe the table sideways to see them all \u2192</p>
`;
    return `${hint}<div class="scroll"><table id="table-${attr(block.name)}" class="${attr(block.name)}${narrow ? " narrow" : ""}">
<thead><tr>${head}</tr></thead>
<tbody>
${rows}
</tbody>
</table></div>${omitted}`;
  }
  return chartSvg(block);
}
var PLOT_HEIGHT = 160;
var TOP = 22;
var BOTTOM = 34;
var SLOT = 46;
function chartSvg(chart) {
  const { name, title, bars, layers = [], limit } = chart;
  if (chart.whenEmpty && bars.every((bar) => bar.value.lte(0))) {
    return `<p class="chart-empty" id="chart-${attr(name)}">${html(chart.whenEmpty)}</p>`;
  }
  const max = [...bars.map((bar) => bar.value), ...limit ? [limit.value] : []].reduce((m, v) => v.gt(m) ? v : m, ZERO);
  const length = (value) => scaledLength(value, max, PLOT_HEIGHT);
  const width = Math.max(320, bars.length * SLOT + 16);
  const height = TOP + PLOT_HEIGHT + BOTTOM;
  const baseline = TOP + PLOT_HEIGHT;
  const labelEvery = Math.ceil(bars.length / 31);
  const showValues = bars.length <= 12;
  const stacked = layers.length > 0;
  const parts = bars.map((bar, i) => {
    const x = 8 + i * SLOT + 6;
    const barWidth = SLOT - 12;
    const h = length(bar.value);
    const middle = x + barWidth / 2;
    let below = ZERO;
    const segments = stacked ? (bar.parts ?? []).map((part, k) => {
      const bottom = length(below);
      below = below.plus(part.value);
      const top = length(below);
      const layer = layers[k];
      return `<rect class="seg seg-${attr(layer.name)}" x="${x}" y="${baseline - top}" width="${barWidth}" height="${top - bottom}" data-layer="${attr(layer.name)}" data-label="${attr(bar.label)}" data-value="${attr(part.value.toFixed(2))}"><title>${html(`${bar.label} ${layer.label}: ${part.text}`)}</title></rect>`;
    }) : [];
    const value = showValues ? `<text x="${middle}" y="${baseline - h - 6}" text-anchor="middle">${html(shortAmount(bar.text))}</text>` : "";
    const label = i % labelEvery === 0 ? `<text x="${middle}" y="${baseline + 16}" text-anchor="middle">${html(shortLabel(bar.label))}</text>` : "";
    const details = stacked ? `${bar.label}: ${bar.text} (${layers.map((layer, k) => `${layer.label} ${bar.parts?.[k]?.text ?? "-"}`).join(", ")})` : `${bar.label}: ${bar.text}`;
    return `${segments.join("")}<rect class="bar${stacked ? " stacked" : ""}" x="${x}" y="${baseline - h}" width="${barWidth}" height="${h}" data-label="${attr(bar.label)}" data-value="${attr(bar.value.toFixed(2))}"><title>${html(details)}</title></rect>${value}${label}`;
  });
  const limitLine = limit ? (() => {
    const y = baseline - length(limit.value) + 0.5;
    return `<line class="limit" x1="4" y1="${y}" x2="${width - 4}" y2="${y}" data-value="${attr(limit.value.toFixed(2))}"><title>${html(`${limit.label}: ${limit.text}`)}</title></line><text class="limit-label" x="${width - 6}" y="${y - 4}" text-anchor="end">${html(`${limit.label} ${shortAmount(limit.text)}`)}</text>`;
  })() : "";
  const legend = stacked ? `<span class="legend">${layers.map((layer) => `<span class="key"><i class="swatch seg-${attr(layer.name)}"></i>${html(layer.label)}</span>`).join("")}${limit ? `<span class="key"><i class="swatch limit"></i>${html(limit.label)}</span>` : ""}</span> ` : "";
  return `<figure class="chart" id="chart-${attr(name)}">
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" style="max-width:${width}px" role="img" aria-label="${attr(title)}">
<line class="axis" x1="4" y1="${baseline + 0.5}" x2="${width - 4}" y2="${baseline + 0.5}"/>
${parts.join("\n")}
${limitLine}
</svg>
<figcaption>${legend}${html(title)}</figcaption>
</figure>`;
}
function shortLabel(label) {
  return /^\d{4}-\d{2}-\d{2}$/.test(label) ? label.slice(5) : label;
}
function shortAmount(text) {
  return text.replace(/^[A-Z]{3} /, "").replace(/\.00$/, "");
}
function html(value) {
  return value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}
var attr = html;

// dist/report/render-markdown.js
var BAR_WIDTH = 20;
function renderMarkdown(doc) {
  const out = [`# ${cell(doc.title)}`, ""];
  for (const [label, value] of doc.facts)
    out.push(`- **${cell(label)}:** ${cell(value)}`);
  const mark = doc.status.tone === "error" ? "**INCOMPLETE:** " : doc.status.tone === "warning" ? "**Note:** " : "";
  out.push("", `> ${mark}${cell(doc.status.text)}`);
  for (const section of doc.sections) {
    out.push("", `## ${cell(section.title)}`);
    for (const block of section.blocks)
      out.push("", ...blockLines(block));
  }
  return `${out.join("\n")}
`;
}
function blockLines(block) {
  if (block.kind === "text")
    return [block.tone === "warning" ? `\u26A0\uFE0F ${cell(block.text)}` : cell(block.text)];
  if (block.kind === "table") {
    const lines = [
      `| ${block.columns.map((c) => cell(c.header)).join(" | ")} |`,
      `|${block.columns.map((c) => c.align === "right" ? " ---: " : " --- ").join("|")}|`,
      ...block.rows.map((row) => `| ${row.map(cell).join(" | ")} |`)
    ];
    return block.omitted > 0 ? [...lines, "", `_${omittedNote(block.omitted)}_`] : lines;
  }
  const lengths = barLengths(block.bars, BAR_WIDTH);
  return [
    `**${cell(block.title)}**`,
    "",
    "| Day | Amount | |",
    "| --- | ---: | --- |",
    ...block.bars.map((bar, i) => `| ${cell(bar.label)} | ${cell(bar.text)} | ${"\u2588".repeat(lengths[i])} |`)
  ];
}
function cell(value) {
  return value.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/([*`<[\]])/g, "\\$1").replace(/\r?\n/g, " ");
}

// dist/report/render-text.js
var BAR_WIDTH2 = 40;
function renderText(doc) {
  const out = [doc.title, "=".repeat(doc.title.length)];
  const width = Math.max(...doc.facts.map(([label]) => label.length));
  for (const [label, value] of doc.facts)
    out.push(`${label.padEnd(width)}  ${value}`);
  out.push("", `${doc.status.tone === "error" ? "INCOMPLETE: " : ""}${doc.status.text}`);
  for (const section of doc.sections) {
    out.push("", section.title, "-".repeat(section.title.length));
    for (const block of section.blocks)
      out.push(...blockLines2(block));
  }
  return `${out.join("\n")}
`;
}
function blockLines2(block) {
  if (block.kind === "text")
    return [block.tone === "warning" ? `! ${block.text}` : block.text];
  if (block.kind === "table") {
    const columns = block.columns.map((column, i) => ({
      header: column.header.toUpperCase(),
      align: column.align,
      value: (row) => row[i] ?? ""
    }));
    const lines = renderTable(block.rows, columns).trimEnd().split("\n");
    return block.omitted > 0 ? [...lines, omittedNote(block.omitted)] : lines;
  }
  const lengths = barLengths(block.bars, BAR_WIDTH2);
  const labelWidth = Math.max(...block.bars.map((bar) => bar.label.length));
  return [
    `${block.title}:`,
    ...block.bars.map((bar, i) => `  ${bar.label.padEnd(labelWidth)}  ${"\u2588".repeat(lengths[i]).padEnd(BAR_WIDTH2)}  ${bar.text}`)
  ];
}

// dist/report/render.js
var REPORT_FORMATS = ["text", "markdown", "json", "html"];
var REPORT_FORMAT_VERSION = "1";
function isReportFormat(value) {
  return REPORT_FORMATS.includes(value);
}
function renderReport(format, views) {
  switch (format) {
    case "json":
      return renderJson(views.json());
    case "markdown":
      return renderMarkdown(inertDocument(views.document()));
    case "html":
      return renderHtml(views.document());
    default:
      return renderText(inertDocument(views.document()));
  }
}

export {
  REPORT_FORMATS,
  REPORT_FORMAT_VERSION,
  isReportFormat,
  renderReport
};
