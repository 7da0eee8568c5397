// The HTML chart on its own: a stacked bar's segments add up to its outline, the limit is a line on the same
// scale, and a chart with nothing to draw is a sentence instead of an empty box.
import { describe, expect, it } from "vitest";
import { parseMoney } from "../../src/money.js";
import type { Block, ReportDocument } from "../../src/report/document.js";
import { renderHtml } from "../../src/report/render-html.js";

const m = parseMoney;
function doc(chart: Block): ReportDocument {
  return {
    title: "t",
    facts: [],
    status: { tone: "ok", text: "ok" },
    sections: [{ id: "s", title: "S", blocks: [chart] }],
  };
}
const layers = [
  { name: "committed", label: "committed" },
  { name: "planned", label: "this plan" },
];
const bar = (label: string, committed: string, planned: string) => ({
  label,
  value: m(committed).plus(m(planned)),
  text: m(committed).plus(m(planned)).toFixed(2),
  parts: [
    { value: m(committed), text: committed },
    { value: m(planned), text: planned },
  ],
});

describe("the HTML chart", () => {
  it("stacks the layers of each bar under its outline and draws the limit on the same scale", () => {
    const out = renderHtml(
      doc({
        kind: "chart",
        name: "budget",
        title: "Budget",
        layers,
        bars: [bar("2026-11-23", "100.00", "300.00"), bar("2026-11-24", "0.00", "0.00")],
        limit: { label: "daily limit", value: m("800.00"), text: "NGN 800.00" },
        whenEmpty: "Nothing.",
      }),
    );
    const height = (re: RegExp) => Number(re.exec(out)?.[1]);
    const committed = height(/class="seg seg-committed"[^>]*height="(\d+)"/);
    const planned = height(/class="seg seg-planned"[^>]*height="(\d+)"/);
    const whole = height(/class="bar stacked"[^>]*height="(\d+)" data-label="2026-11-23"/);
    expect(committed + planned).toBe(whole);
    expect(whole).toBe(80); // 400 of the 800.00 limit, on a plot 160 high
    expect(planned).toBe(60);
    const limitY = Number(/<line class="limit" x1="4" y1="([\d.]+)"/.exec(out)?.[1]);
    expect(limitY).toBe(22 + 160 - 160 + 0.5); // the limit is the top of the scale
    expect(out).toContain('data-value="800.00"');
    expect(out).not.toContain("Nothing.");
  });

  it("says a sentence instead of drawing an empty chart", () => {
    const out = renderHtml(
      doc({
        kind: "chart",
        name: "budget",
        title: "Budget",
        layers,
        bars: [bar("2026-11-23", "0.00", "0.00")],
        whenEmpty: "Nothing is committed or planned.",
      }),
    );
    expect(out).toContain('<p class="chart-empty" id="chart-budget">Nothing is committed or planned.</p>');
    expect(out).not.toContain("<svg");
  });
});
