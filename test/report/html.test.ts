// The HTML reports in a real browser (Debian's headless Chromium): one self-contained file whose chart has
// one bar per day at the right heights and whose tables have their rows, readable at a phone's width.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planCommand, reportCommand } from "../../src/cli/report-commands.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { testConfig } from "../helpers/config.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";
import { needs } from "../helpers/tools.js";
import { CHROMIUM_TOOL, DESKTOP, dumpDom, measureAt, measureOnPhone } from "./chromium.js";
import { captureIo, withContext } from "./helpers.js";
import { type SeededDays, seedLedger, TIME_ZONE } from "./seed.js";

const inChromium = await needs(CHROMIUM_TOOL, "the HTML report tests in Chromium");

let sandbox: Sandbox;
let test: TestDatabase;
let days: SeededDays;
const dir = mkdtempSync(join(tmpdir(), "topsync-html-"));
const reportFile = join(dir, "report.html");
const planFile = join(dir, "plan.html");

beforeAll(async () => {
  if (!inChromium) return;
  sandbox = await startSandbox({ verifyLag: "reads", seed: 3 });
  test = await openTestDatabase("postgres");
  days = await seedLedger(test.database.db);
  const config = testConfig(sandbox, {
    timezone: TIME_ZONE,
    budget: { daily_limit: "5000.00" },
    purchases: [
      {
        name: "staff",
        schedule: "0 */6 * * *",
        plan: { network: "MTN", plan_id: "102" },
        recipients: ["08031110001", "08051110003"],
      },
    ],
    websites: { items: [{ domain: "html.example.com" }] },
  });
  const io = captureIo();
  await withContext(config, async (ctx) => {
    await reportCommand(ctx, { format: "html", out: reportFile }, { io, database: test.database });
    await planCommand(ctx, { format: "html", out: planFile }, { io, database: test.database });
  });
});
afterAll(async () => {
  await sandbox?.close();
  await test?.drop();
});

/** The rows of a table's body in a dumped DOM. */
function bodyRows(dom: string, id: string): string[] {
  const table = new RegExp(`<table id="${id}"[^>]*>([\\s\\S]*?)</table>`).exec(dom);
  expect(table, `table #${id}`).not.toBeNull();
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(table![1]!)![1]!;
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) =>
    [...m[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => c[1]!).join(" | "),
  );
}

/** The stacked segments of a chart in a dumped DOM: layer, day and value. */
function segments(dom: string): Array<{ layer: string; label: string; value: string }> {
  return [
    ...dom.matchAll(
      /<rect class="seg [^"]*"[^>]*data-layer="([^"]+)" data-label="([^"]+)" data-value="([^"]+)"/g,
    ),
  ].map((m) => ({ layer: m[1]!, label: m[2]!, value: m[3]! }));
}

/** Every day from `first` to `last`, YYYY-MM-DD. */
function daysFrom(first: string, last: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${first}T00:00:00Z`); t <= Date.parse(`${last}T00:00:00Z`); t += 86_400_000) {
    out.push(new Date(t).toISOString().slice(0, 10));
  }
  return out;
}

function bars(dom: string): Array<{ label: string; value: string }> {
  return [...dom.matchAll(/<rect class="bar[^"]*"[^>]*data-label="([^"]+)" data-value="([^"]+)"/g)].map(
    (m) => ({
      label: m[1]!,
      value: m[2]!,
    }),
  );
}

describe.skipIf(!inChromium)("HTML reports in headless Chromium", () => {
  it("the report is one self-contained file: no script, stylesheet, font, image or frame from anywhere", () => {
    for (const file of [reportFile, planFile]) {
      const html = readFileSync(file, "utf8");
      expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
      expect(html).toMatch(/<style>[\s\S]+<\/style>/);
      expect(html).not.toMatch(/<script|<link|<img|<iframe|<object|@import|url\(|\bsrc=|\bhref=/i);
      // The only URL is the SVG namespace, which is a name, not a fetch.
      expect(html.match(/https?:\/\/[^\s"')]+/g)).toEqual(["http://www.w3.org/2000/svg"]);
    }
  });

  it("the ledger report stacks succeeded, unsettled and failed on every day of the period", async () => {
    const dom = await dumpDom(reportFile);
    const drawn = bars(dom);
    // every day of the default 7-day period, the quiet ones at zero
    expect(drawn.map((b) => b.label)).toEqual(daysFrom(drawn[0]!.label, days.today));
    expect(drawn.length).toBeGreaterThanOrEqual(7);
    const value = (day: string) => drawn.find((b) => b.label === day)?.value;
    expect([value(days.d1), value(days.d2), value(days.today)]).toEqual(["610.00", "938.00", "305.00"]);
    expect(
      drawn.filter((b) => ![days.d1, days.d2, days.today].includes(b.label)).map((b) => b.value),
    ).toEqual(Array(drawn.length - 3).fill("0.00"));
    const layers = segments(dom).filter((seg) => seg.label === days.d2);
    expect(layers).toEqual([
      { layer: "succeeded", label: days.d2, value: "305.00" },
      { layer: "unsettled", label: days.d2, value: "168.00" },
      { layer: "failed", label: days.d2, value: "465.00" },
    ]);
    expect(dom).toContain('<i class="swatch seg-failed"></i>failed');
    expect(bodyRows(dom, "table-spend")).toEqual([
      `${days.d1} | 2 | 2 | NGN 610.00 | NGN 0.00 | 0 | NGN 0.00`,
      `${days.d2} | 3 | 1 | NGN 305.00 | NGN 168.00 | 1 | NGN 465.00`,
      `${days.today} | 1 | 0 | NGN 0.00 | NGN 305.00 | 0 | NGN 0.00`,
      "total | 6 | 3 | NGN 915.00 | NGN 473.00 | 1 | NGN 465.00",
    ]);
    expect(bodyRows(dom, "table-networks")).toEqual([
      "MTN | 5 | 3 | 0 | NGN 915.00 | NGN 473.00",
      "GLO | 1 | 0 | 1 | NGN 0.00 | NGN 0.00",
    ]);
    const open = bodyRows(dom, "table-open");
    expect(open).toHaveLength(2);
    expect(open[0]).toMatch(
      /^5 \| in_doubt \| 2h \| .+ \| staff \| 0803\*\*\*\*005 \| 102 \| NGN 305\.00 \| - \| topsync purchases resolve 5 --as succeeded\|failed --note "…"$/,
    );
    expect(bodyRows(dom, "table-failures")).toEqual([
      "Insufficient stock for &lt;phone&gt; | 1 | NGN 465.00 | NGN 465.00",
    ]);
    expect(bodyRows(dom, "table-passes")).toHaveLength(2);
    expect(dom).not.toMatch(/08031110005|08051234567/);
  });

  it("the plan stacks committed and planned on every day of the window, under the daily limit", async () => {
    const dom = await dumpDom(planFile);
    const budget = bodyRows(dom, "table-budget");
    const drawn = bars(dom);
    // the default 24h window touches today and tomorrow; the table lists the days with purchases
    expect(drawn.map((b) => b.label)).toEqual(daysFrom(days.today, drawn.at(-1)!.label));
    expect(drawn.length).toBe(2);
    for (const row of budget) expect(drawn.map((b) => b.label)).toContain(row.split(" | ")[0]);
    for (const bar of drawn) {
      const parts = segments(dom).filter((seg) => seg.label === bar.label);
      expect(parts.map((p) => p.layer)).toEqual(["committed", "planned"]);
      const sum = parts.reduce((total, p) => total + Number(p.value), 0);
      expect(sum.toFixed(2)).toBe(bar.value);
      const row = budget.find((r) => r.startsWith(`${bar.label} |`));
      if (row) {
        const [, committed, planned] = row.split(" | ");
        expect(
          parts.map((p) => `NGN ${Number(p.value).toLocaleString("en-US", { minimumFractionDigits: 2 })}`),
        ).toEqual([committed, planned]);
      }
    }
    expect(dom).toMatch(/<line class="limit"[^>]*data-value="5000\.00"/);
    const runs = bodyRows(dom, "table-runs");
    expect(runs.length).toBeGreaterThanOrEqual(4); // a fire every 6 hours
    for (const run of runs)
      expect(run).toMatch(/job staff fire .+ \| 2 \| 1 \| 1 \| 0 \| 0 \| NGN 305\.00 \| $/);
    expect(bodyRows(dom, "table-websites")).toEqual([
      expect.stringMatching(/^create \| html\.example\.com \| - \| privacy: private/),
    ]);
    expect(dom).toContain('<p id="status" class="status tone-note">Dry run, nothing was bought or changed');
  });

  interface Layout {
    width: number;
    pageWidth: number;
    svg: { width: number; height: number };
    bars: Array<{ label: string; height: number; top: number }>;
    limitTop: number | null;
    tables: Array<{
      id: string;
      height: number;
      boxWidth: number;
      scrollWidth: number;
      columns: number;
      hint: string | null;
    }>;
    fontSize: number;
  }
  const LAYOUT = `(() => {
    const box = (e) => e.getBoundingClientRect();
    return {
      width: window.innerWidth,
      pageWidth: document.documentElement.scrollWidth,
      svg: { width: box(document.querySelector("svg")).width, height: box(document.querySelector("svg")).height },
      bars: [...document.querySelectorAll("rect.bar")].map((r) => ({
        label: r.dataset.label, height: box(r).height, top: box(r).top,
      })),
      limitTop: document.querySelector("line.limit") ? box(document.querySelector("line.limit")).top : null,
      tables: [...document.querySelectorAll("table")].map((t) => {
        const hint = t.parentElement.previousElementSibling;
        const shown = hint && hint.classList.contains("scroll-hint") && getComputedStyle(hint).display !== "none";
        return {
          id: t.id, height: box(t).height, boxWidth: t.parentElement.clientWidth,
          scrollWidth: t.parentElement.scrollWidth, columns: t.querySelectorAll("thead th").length,
          hint: shown ? hint.textContent : null,
        };
      }),
      fontSize: parseFloat(getComputedStyle(document.body).fontSize),
    };
  })()`;

  function expectReadableOnPhone(layout: Layout): void {
    expect(layout.width).toBe(390);
    expect(layout.pageWidth).toBeLessThanOrEqual(layout.width); // the page never scrolls sideways
    expect(layout.fontSize).toBeGreaterThanOrEqual(14);
    expect(layout.svg.width).toBeGreaterThan(200);
    expect(layout.svg.width).toBeLessThanOrEqual(390);
    expect(layout.svg.height).toBeGreaterThan(100);
    for (const table of layout.tables) {
      expect(table.height, table.id).toBeGreaterThan(40);
      expect(table.boxWidth, table.id).toBeLessThanOrEqual(390);
      // A table wider than the screen says so above it; one of up to three columns wraps and always fits.
      if (table.scrollWidth > table.boxWidth)
        expect(table.hint, table.id).toMatch(/swipe the table sideways/);
      if (table.columns <= 3) {
        expect(table.scrollWidth, table.id).toBeLessThanOrEqual(table.boxWidth);
        expect(table.hint, table.id).toBeNull();
      }
    }
  }

  function expectFitsDesktop(layout: Layout): void {
    expect(layout.width).toBe(1280);
    expect(layout.pageWidth).toBeLessThanOrEqual(1280);
    for (const table of layout.tables) {
      // every table fits its column: nothing cut off behind a scrollbar, and no hint on a wide screen
      expect(table.scrollWidth, table.id).toBeLessThanOrEqual(table.boxWidth);
      expect(table.hint, table.id).toBeNull();
    }
  }

  it("the report is readable on a phone: fits the width, the chart fits, bars are drawn to scale", async () => {
    const layout = await measureOnPhone<Layout>(reportFile, LAYOUT, join(dir, "report-390.png"));
    expectReadableOnPhone(layout);
    const height = (day: string) => layout.bars.find((b) => b.label === day)!.height;
    expect(height(days.d2)).toBeGreaterThan(50);
    expect(height(days.d1) / height(days.d2)).toBeCloseTo(610 / 938, 1);
    expect(height(days.today) / height(days.d2)).toBeCloseTo(305 / 938, 1);
    expect(layout.bars.filter((b) => b.height === 0)).toHaveLength(layout.bars.length - 3);
    expect(layout.tables.map((t) => t.id)).toEqual([
      "table-spend",
      "table-networks",
      "table-jobs",
      "table-states",
      "table-open",
      "table-failures",
      "table-passes",
    ]);
  });

  it("the plan is readable on a phone too, its limit line above the bars", async () => {
    const layout = await measureOnPhone<Layout>(planFile, LAYOUT, join(dir, "plan-390.png"));
    expectReadableOnPhone(layout);
    expect(layout.limitTop).not.toBeNull();
    for (const bar of layout.bars) expect(layout.limitTop!, bar.label).toBeLessThan(bar.top);
    expect(layout.tables.some((t) => t.hint !== null)).toBe(true);
    expect(layout.tables.map((t) => t.id)).toEqual(
      expect.arrayContaining([
        "table-jobs",
        "table-runs",
        "table-networks",
        "table-budget",
        "table-rejected",
        "table-websites",
      ]),
    );
  });

  it("at 1280 px every table of the report and the plan fits its column", async () => {
    for (const [file, shot] of [
      [reportFile, "report-1280.png"],
      [planFile, "plan-1280.png"],
    ] as const) {
      const layout = await measureAt<Layout>(file, LAYOUT, DESKTOP, join(dir, shot));
      expectFitsDesktop(layout);
      expect(layout.svg.width).toBeGreaterThan(300);
    }
    console.log(`HTML report screenshots: ${dir}`);
  });
});
