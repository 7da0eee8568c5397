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
import { chromiumProblem, dumpDom, measureOnPhone } from "./chromium.js";
import { captureIo, withContext } from "./helpers.js";
import { type SeededDays, seedLedger, TIME_ZONE } from "./seed.js";

const problem = await chromiumProblem();
if (problem) console.warn(`skipping the HTML report test in Chromium: ${problem}`);

let sandbox: Sandbox;
let test: TestDatabase;
let days: SeededDays;
const dir = mkdtempSync(join(tmpdir(), "topsync-html-"));
const reportFile = join(dir, "report.html");
const planFile = join(dir, "plan.html");

beforeAll(async () => {
  if (problem) return;
  sandbox = await startSandbox({ seed: 3 });
  test = await openTestDatabase("postgres");
  days = await seedLedger(test.database.db);
  const config = testConfig(sandbox, {
    timezone: TIME_ZONE,
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

function bars(dom: string): Array<{ label: string; value: string }> {
  return [...dom.matchAll(/<rect class="bar"[^>]*data-label="([^"]+)" data-value="([^"]+)"/g)].map((m) => ({
    label: m[1]!,
    value: m[2]!,
  }));
}

describe.skipIf(problem !== undefined)("HTML reports in headless Chromium", () => {
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

  it("the ledger report renders a bar per day and the tables with their rows", async () => {
    const dom = await dumpDom(reportFile);
    expect(bars(dom)).toEqual([
      { label: days.d1, value: "610.00" },
      { label: days.d2, value: "305.00" },
      { label: days.today, value: "0.00" },
    ]);
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

  it("the plan renders its chart (one bar per budget day) and its tables", async () => {
    const dom = await dumpDom(planFile);
    const budget = bodyRows(dom, "table-budget");
    expect(bars(dom).map((b) => b.label)).toEqual(budget.map((row) => row.split(" | ")[0]));
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
    bars: number[];
    tables: Array<{ id: string; height: number; boxWidth: number }>;
    fontSize: number;
  }
  const LAYOUT = `(() => {
    const box = (e) => e.getBoundingClientRect();
    return {
      width: window.innerWidth,
      pageWidth: document.documentElement.scrollWidth,
      svg: { width: box(document.querySelector("svg")).width, height: box(document.querySelector("svg")).height },
      bars: [...document.querySelectorAll("rect.bar")].map((r) => box(r).height),
      tables: [...document.querySelectorAll("table")].map((t) => ({
        id: t.id, height: box(t).height, boxWidth: box(t.parentElement).width,
      })),
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
    }
  }

  it("the report is readable on a phone: fits the width, the chart fits, bars are drawn to scale", async () => {
    const layout = await measureOnPhone<Layout>(reportFile, LAYOUT);
    expectReadableOnPhone(layout);
    const [d1, d2, today] = layout.bars;
    expect(d1).toBeGreaterThan(50);
    expect(d2! / d1!).toBeCloseTo(0.5, 1); // 305.00 of 610.00
    expect(today).toBe(0);
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

  it("the plan is readable on a phone too", async () => {
    const layout = await measureOnPhone<Layout>(planFile, LAYOUT);
    expectReadableOnPhone(layout);
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
});
