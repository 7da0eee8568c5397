// deploy/grafana/topsync.json: every expression parses (promtool, as recording rules) and reads only metrics a
// running daemon exports (its live /metrics), the spend panel draws the daily limit, and an age is not drawn from a
// timestamp still 0.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { PROMTOOL, parsePrometheus } from "../daemon/prometheus.js";
import { ROOT } from "../helpers/cli.js";
import { needs } from "../helpers/tools.js";
import { useLiveDaemon } from "./live-daemon.js";

interface Panel {
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { uid: string };
  targets?: Array<{ expr: string; refId: string }>;
  panels?: Panel[];
}

const dashboard = JSON.parse(readFileSync(`${ROOT}deploy/grafana/topsync.json`, "utf8")) as {
  uid: string;
  panels: Panel[];
  templating: { list: Array<{ name: string; type: string; query: string }> };
};
const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]).filter((p) => p.type !== "row");
const expressions = panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));

/** Grafana's variables as a query sent to Prometheus has them. */
function asSent(expr: string): string {
  return expr.replace(/\$__rate_interval|\$__interval|\$__range/g, "5m");
}

/** PromQL's words in the dashboard that are not metrics: functions, aggregations, operators. */
const PROMQL_WORDS = new Set([
  "sum",
  "max",
  "min",
  "count",
  "avg",
  "rate",
  "increase",
  "histogram_quantile",
  "time",
  "and",
  "or",
  "unless",
]);

/** The metric names an expression reads: what is left once strings, matchers, ranges and label lists are out. */
function metricsOf(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, "")
    .replace(/\[[^\]]*\]/g, "")
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, "");
  return [...bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)].map((m) => m[0]).filter((w) => !PROMQL_WORDS.has(w));
}

const daemon = useLiveDaemon({
  budget: { daily_limit: "50000.00", min_wallet_balance: "1000.00" },
  notifications: { wallet_low: { below: "20000.00", clear_above: "25000.00" } },
});

describe("the Grafana dashboard", () => {
  it("has panels that each query Prometheus through the datasource variable", () => {
    expect(dashboard.templating.list).toContainEqual(
      expect.objectContaining({ name: "datasource", type: "datasource", query: "prometheus" }),
    );
    expect(panels.length).toBeGreaterThan(15);
    for (const panel of panels) {
      expect(panel.datasource?.uid, panel.title).toBe("$" + "{datasource}");
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
    }
    expect(new Set(panels.map((p) => p.title)).size).toBe(panels.length);
  });

  it("lays its panels on Grafana's 24-column grid without overlapping", () => {
    const taken = new Map<string, string>();
    for (const panel of dashboard.panels) {
      const { x, y, w, h } = panel.gridPos;
      expect(x + w, panel.title).toBeLessThanOrEqual(24);
      for (let column = x; column < x + w; column++)
        for (let row = y; row < y + h; row++) {
          const cell = `${column},${row}`;
          expect(taken.get(cell), `${panel.title} over another panel at ${cell}`).toBeUndefined();
          taken.set(cell, panel.title);
        }
    }
  });

  it("draws the daily limit on the spend panel, and the floor on the wallet panel", () => {
    const exprs = (title: string) => panels.find((p) => p.title === title)?.targets?.map((t) => t.expr) ?? [];
    expect(exprs("Spend today against the daily limit")).toEqual([
      "max(topsync_spend_today_naira)",
      "max(topsync_budget_daily_limit_naira)",
    ]);
    expect(exprs("Wallet against the floor")).toContain("max(topsync_budget_min_wallet_balance_naira)");
  });

  it("has expressions that promtool parses", async () => {
    if (!(await needs(PROMTOOL, "promtool check rules over the dashboard's expressions"))) return;
    const dir = mkdtempSync(join(tmpdir(), "topsync-dashboard-"));
    const file = join(dir, "dashboard-rules.yaml");
    const rules = expressions.map((e, i) => ({ record: `topsync:dashboard:${i}`, expr: asSent(e.expr) }));
    writeFileSync(file, stringify({ groups: [{ name: "dashboard", rules }] }));
    const check = spawnSync("promtool", ["check", "rules", file], { encoding: "utf8" });
    expect(check.status, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toContain(`${rules.length} rules found`);
  });

  it("draws no age from a timestamp still 0 (no good pass yet), not the decades since 1970", async () => {
    if (!(await needs(PROMTOOL, "promtool test rules over the dashboard's ages"))) return;
    // What a daemon exports before its first good website pass (or with no website loop at all).
    const scraped = parsePrometheus((await daemon().get("/metrics")).body);
    const never = scraped.samples.find((s) => s.name === "topsync_website_last_success_timestamp_seconds");
    expect(never?.value).toBe(0);
    const ages = expressions.filter((e) => /\btime\(\)\s*-/.test(e.expr));
    expect(ages.map((e) => e.panel)).toContain("Since the last good pass");
    const dir = mkdtempSync(join(tmpdir(), "topsync-dashboard-"));
    const rules = ages.map((e, i) => ({ record: `topsync:age:${i}`, expr: asSent(e.expr) }));
    writeFileSync(join(dir, "ages.yaml"), stringify({ groups: [{ name: "ages", rules }] }));
    const stamps = [...new Set(ages.flatMap((e) => metricsOf(e.expr)))];
    const test = {
      rule_files: ["ages.yaml"],
      evaluation_interval: "1m",
      tests: [
        {
          interval: "1m",
          input_series: stamps.map((name) => ({ series: `${name}{instance="a"}`, values: "0x10" })),
          promql_expr_test: rules.map((r) => ({ expr: r.record, eval_time: "5m", exp_samples: [] })),
        },
      ],
    };
    writeFileSync(join(dir, "ages.test.yaml"), stringify(test));
    const run = spawnSync("promtool", ["test", "rules", "ages.test.yaml"], { cwd: dir, encoding: "utf8" });
    expect(run.status, run.stdout + run.stderr).toBe(0);
  });

  it("reads only metrics a running daemon exports on /metrics", async () => {
    const scraped = await daemon().get("/metrics");
    expect(scraped.status).toBe(200);
    const { types } = parsePrometheus(scraped.body);
    const exported = new Set<string>();
    for (const [family, type] of types) {
      exported.add(family);
      if (type === "histogram")
        for (const suffix of ["_bucket", "_sum", "_count"]) exported.add(family + suffix);
    }
    const used = new Set(expressions.flatMap((e) => metricsOf(e.expr)));
    expect(used.size).toBeGreaterThan(20);
    for (const name of used) expect(exported, `${name} (the dashboard reads it)`).toContain(name);
  });
});
