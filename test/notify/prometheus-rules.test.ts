// deploy/prometheus/topsync-rules.yaml: promtool checks it and runs its unit tests; every alert says its severity,
// summary, description and a runbook in the README; every metric it reads is one topsync exports.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { parseConfig } from "../../src/config/index.js";
import { DaemonMetrics } from "../../src/server/metrics.js";
import { yaml } from "../config/helpers.js";
import { PROMTOOL } from "../daemon/prometheus.js";
import { needs } from "../helpers/tools.js";

const DIR = fileURLToPath(new URL("../../deploy/prometheus/", import.meta.url));
const RULES = `${DIR}topsync-rules.yaml`;

interface Rule {
  alert: string;
  expr: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const rules = (parse(readFileSync(RULES, "utf8")) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap(
  (g) => g.rules,
);

/** GitHub's anchor of a heading: lower case, punctuation but - and _ dropped, spaces to -. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

describe("the Prometheus alerting rules", () => {
  it("pass promtool check rules and their unit tests (promtool test rules)", async () => {
    if (!(await needs(PROMTOOL, "promtool test rules over deploy/prometheus"))) return;
    const check = spawnSync("promtool", ["check", "rules", RULES], { encoding: "utf8" });
    expect(check.status, check.stdout + check.stderr).toBe(0);
    const test = spawnSync("promtool", ["test", "rules", "topsync-rules.test.yaml"], {
      cwd: DIR,
      encoding: "utf8",
    });
    expect(test.status, test.stdout + test.stderr).toBe(0);
    expect(test.stdout).toContain("SUCCESS");
  });

  it("name their alerts in CamelCase with a severity, a summary, a description and a runbook in the README", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const anchors = new Set([...readme.matchAll(/^#+ (.+)$/gm)].map((m) => anchor(m[1]!)));
    expect(rules.map((r) => r.alert)).toEqual([
      "TopsyncPurchaseInDoubt",
      "TopsyncBudgetNearlySpent",
      "TopsyncWalletBelowFloor",
      "TopsyncMissedFires",
      "TopsyncNotificationsFailing",
      "TopsyncNotificationsStuck",
      "TopsyncPurchaseRunStopped",
      "TopsyncLedgerUnreadable",
      "TopsyncDown",
    ]);
    for (const rule of rules) {
      expect(rule.alert).toMatch(/^Topsync([A-Z][a-z]+)+$/);
      expect(["critical", "warning"]).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary).toBeTruthy();
      expect(rule.annotations?.description).toBeTruthy();
      const runbook = rule.annotations?.runbook_url ?? "";
      expect(runbook).toMatch(/README\.md#runbook-/);
      expect(anchors, `README has no heading for ${runbook}`).toContain(runbook.split("#")[1]);
    }
  });

  it("read only metrics topsync exports", async () => {
    const { config } = parseConfig(
      yaml(
        "budget: { daily_limit: '100000.00' }",
        "notifications:",
        "  wallet_low: { below: '20000.00', clear_above: '25000.00' }",
      ),
      "config.yaml",
      {},
    );
    const metrics = new DaemonMetrics(config);
    metrics.notifyObserver.sent("a", "in_doubt", 10);
    metrics.notifyObserver.failed("a", "in_doubt");
    metrics.fire("job", "skipped");
    const exported = new Set(
      [...(await metrics.registry.metrics()).matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!),
    );
    const used = new Set(
      rules.flatMap((r) => [...r.expr.matchAll(/\b(topsync_[a-z_]+)/g)].map((m) => m[1]!)),
    );
    expect(used.size).toBeGreaterThan(5);
    for (const name of used) expect(exported, `${name} is not exported`).toContain(name);
  });
});
