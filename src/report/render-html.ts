// A report as one self-contained HTML file: inline CSS and SVG, nothing fetched (a Content-Security-Policy
// says so), readable on a phone: wide tables scroll inside their box, the page itself never sideways.
import { type Money, ZERO } from "../money.js";
import { scaledLength } from "./chart-scale.js";
import { type Block, omittedNote, type ReportDocument } from "./document.js";

/** The reports' style sheet (the console serves it too, for the documents it shows). */
export const REPORT_CSS = `
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

export function renderHtml(doc: ReportDocument): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="generator" content="topsync">
<title>${html(doc.title)}</title>
<style>${REPORT_CSS}</style>
</head>
<body>
${renderHtmlBody(doc)}
</body>
</html>
`;
}

/** The document's markup without the page around it: the console shows it inside its own pages. */
export function renderHtmlBody(doc: ReportDocument): string {
  const body = [
    `<h1>${html(doc.title)}</h1>`,
    `<dl class="facts">${doc.facts.map(([k, v]) => `<dt>${html(k)}</dt><dd>${html(v)}</dd>`).join("")}</dl>`,
    `<p id="status" class="status tone-${doc.status.tone}">${doc.status.tone === "error" ? "INCOMPLETE: " : ""}${html(doc.status.text)}</p>`,
    ...doc.sections.map(
      (section) =>
        `<section id="${attr(section.id)}">\n<h2>${html(section.title)}</h2>\n${section.blocks.map(blockHtml).join("\n")}\n</section>`,
    ),
  ];
  return body.join("\n");
}

/** Columns with longer values than this wrap (reasons, messages); the others stay on one line. */
const WRAP_AFTER = 28;

function blockHtml(block: Block): string {
  if (block.kind === "text") {
    return `<p${block.tone ? ` class="tone-${block.tone}"` : ""}>${html(block.text)}</p>`;
  }
  if (block.kind === "table") {
    const wraps = block.columns.map((_, i) => block.rows.some((row) => (row[i]?.length ?? 0) > WRAP_AFTER));
    const cls = (i: number, cell: boolean) =>
      block.columns[i]?.align === "right" ? ' class="num"' : cell && wraps[i] ? ' class="wrap"' : "";
    const head = block.columns
      .map((c, i) => `<th scope="col"${cls(i, false)}>${html(c.header)}</th>`)
      .join("");
    const rows = block.rows
      .map((row) => `<tr>${row.map((value, i) => `<td${cls(i, true)}>${html(value)}</td>`).join("")}</tr>`)
      .join("\n");
    const omitted = block.omitted > 0 ? `\n<p class="omitted">${html(omittedNote(block.omitted))}</p>` : "";
    // Tables of up to three columns wrap their cells and fit a phone; wider ones scroll inside their box,
    // with a shadow at the edge that has more, and on a phone a line above says so.
    const narrow = block.columns.length <= 3;
    const hint = narrow
      ? ""
      : `<p class="scroll-hint" id="hint-${attr(block.name)}">${block.columns.length} columns: swipe the table sideways to see them all →</p>\n`;
    return `${hint}<div class="scroll"><table id="table-${attr(block.name)}" class="${attr(block.name)}${narrow ? " narrow" : ""}">
<thead><tr>${head}</tr></thead>
<tbody>
${rows}
</tbody>
</table></div>${omitted}`;
  }
  return chartSvg(block);
}

const PLOT_HEIGHT = 160;
const TOP = 22;
const BOTTOM = 34;
const SLOT = 46;

type ChartBlock = Extract<Block, { kind: "chart" }>;

/**
 * Vertical bars, one per label, scaled exactly (see chart-scale.ts); each `rect.bar` carries its label and
 * value. A stacked chart draws each bar's layers as segments under its bar's outline, and a limit as a line.
 */
function chartSvg(chart: ChartBlock): string {
  const { name, title, bars, layers = [], limit } = chart;
  if (chart.whenEmpty && bars.every((bar) => bar.value.lte(0))) {
    return `<p class="chart-empty" id="chart-${attr(name)}">${html(chart.whenEmpty)}</p>`;
  }
  const max = [...bars.map((bar) => bar.value), ...(limit ? [limit.value] : [])].reduce(
    (m, v) => (v.gt(m) ? v : m),
    ZERO,
  );
  const length = (value: Money) => scaledLength(value, max, PLOT_HEIGHT);
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
    const segments = stacked
      ? (bar.parts ?? []).map((part, k) => {
          const bottom = length(below);
          below = below.plus(part.value);
          const top = length(below);
          const layer = layers[k]!;
          return `<rect class="seg seg-${attr(layer.name)}" x="${x}" y="${baseline - top}" width="${barWidth}" height="${top - bottom}" data-layer="${attr(layer.name)}" data-label="${attr(bar.label)}" data-value="${attr(part.value.toFixed(2))}"><title>${html(`${bar.label} ${layer.label}: ${part.text}`)}</title></rect>`;
        })
      : [];
    const value = showValues
      ? `<text x="${middle}" y="${baseline - h - 6}" text-anchor="middle">${html(shortAmount(bar.text))}</text>`
      : "";
    const label =
      i % labelEvery === 0
        ? `<text x="${middle}" y="${baseline + 16}" text-anchor="middle">${html(shortLabel(bar.label))}</text>`
        : "";
    const details = stacked
      ? `${bar.label}: ${bar.text} (${layers.map((layer, k) => `${layer.label} ${bar.parts?.[k]?.text ?? "-"}`).join(", ")})`
      : `${bar.label}: ${bar.text}`;
    return `${segments.join("")}<rect class="bar${stacked ? " stacked" : ""}" x="${x}" y="${baseline - h}" width="${barWidth}" height="${h}" data-label="${attr(bar.label)}" data-value="${attr(bar.value.toFixed(2))}"><title>${html(details)}</title></rect>${value}${label}`;
  });
  const limitLine = limit
    ? (() => {
        const y = baseline - length(limit.value) + 0.5;
        return `<line class="limit" x1="4" y1="${y}" x2="${width - 4}" y2="${y}" data-value="${attr(limit.value.toFixed(2))}"><title>${html(`${limit.label}: ${limit.text}`)}</title></line><text class="limit-label" x="${width - 6}" y="${y - 4}" text-anchor="end">${html(`${limit.label} ${shortAmount(limit.text)}`)}</text>`;
      })()
    : "";
  const legend = stacked
    ? `<span class="legend">${layers.map((layer) => `<span class="key"><i class="swatch seg-${attr(layer.name)}"></i>${html(layer.label)}</span>`).join("")}${limit ? `<span class="key"><i class="swatch limit"></i>${html(limit.label)}</span>` : ""}</span> `
    : "";
  return `<figure class="chart" id="chart-${attr(name)}">
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" style="max-width:${width}px" role="img" aria-label="${attr(title)}">
<line class="axis" x1="4" y1="${baseline + 0.5}" x2="${width - 4}" y2="${baseline + 0.5}"/>
${parts.join("\n")}
${limitLine}
</svg>
<figcaption>${legend}${html(title)}</figcaption>
</figure>`;
}

/** "2026-05-01" → "05-01" under a bar; other labels as they are. */
function shortLabel(label: string): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(label) ? label.slice(5) : label;
}

/** "NGN 12,345.00" → "12,345" above a bar (the exact value is in the bar's title and the table). */
function shortAmount(text: string): string {
  return text.replace(/^[A-Z]{3} /, "").replace(/\.00$/, "");
}

function html(value: string): string {
  return value
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

const attr = html;
