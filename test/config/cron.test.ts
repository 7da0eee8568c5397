// What config check says about schedules: the syntax node-cron accepts, an expression that never fires,
// both day fields restricted (node-cron needs both, crontab either), and a one-off time already past.
import { describe, expect, it } from "vitest";
import { formatIssue } from "../../src/config/index.js";
import { issues, load, yaml } from "./helpers.js";

function job(...lines: string[]): string {
  return yaml(
    "purchases:",
    "  - name: j",
    ...lines.map((line) => `    ${line}`),
    '    plan: { network: MTN, plan_id: "101" }',
    '    max_price: "200.00"',
    '    recipients: ["08031234567"]',
  );
}

describe("schedules in config check", () => {
  it("lists the syntax it supports when node-cron refuses an expression", () => {
    const [line] = issues(job('schedule: "0 0 1 * 5#6"'));
    expect(line).toContain(
      'config.yaml:9:15: purchases[0].schedule (job "j"): "0 0 1 * 5#6" is not a valid cron expression',
    );
    for (const part of [
      "five fields",
      "six with seconds",
      "L (last day)",
      "15W",
      "5L (last",
      "1#2 (second Monday)",
      "@daily",
    ]) {
      expect(line).toContain(part);
    }
    expect(line).not.toContain("use five fields: ");
  });

  it("refuses an expression no day matches", () => {
    expect(issues(job('schedule: "0 0 1 * 5#2"'))).toEqual([
      'config.yaml:9:15: purchases[0].schedule (job "j"): "0 0 1 * 5#2" never fires: no day in the next 100 years matches it (node-cron fires only on a day that matches both its day-of-month and its day-of-week)',
    ]);
  });

  it("warns when both day fields are restricted, saying what topsync will do", () => {
    const { warnings } = load(job('schedule: "0 0 1,15 * 3"', "timezone: UTC"));
    expect(warnings.map(formatIssue)).toEqual([
      expect.stringMatching(
        /^config\.yaml:9:15: purchases\[0\]\.schedule \(job "j"\): "0 0 1,15 \* 3" restricts both day-of-month and day-of-week: topsync \(node-cron\) fires only on days that match both, not on days that match either as crontab does \(next fire \d{4}-\d\d-(01|15)T00:00:00\.000Z\); for either, write two jobs, one per day field$/,
      ),
    ]);
    expect(load(job('schedule: "0 0 1,15 * *"')).warnings).toEqual([]);
    expect(load(job('schedule: "0 0 ? * 3"')).warnings).toEqual([]);
  });

  it("warns about an at time already past", () => {
    const { warnings } = load(job('at: "2020-01-01T08:00:00Z"'));
    expect(warnings.map(formatIssue)).toEqual([
      'config.yaml:9:9: purchases[0].at (job "j"): 2020-01-01T08:00:00.000Z has passed: it is more than catch_up (6h) ago, so it will not fire',
    ]);
    const soon = new Date(Date.now() - 60_000).toISOString();
    expect(load(job(`at: "${soon}"`)).warnings.map(formatIssue)[0]).toContain(
      "it will not fire for a job topsync first sees now",
    );
    const future = new Date(Date.now() + 86_400_000).toISOString();
    expect(load(job(`at: "${future}"`)).warnings).toEqual([]);
  });
});

describe("the website loop's label", () => {
  it("no purchase job can be named as the website loop is in metrics and schedule_fires", () => {
    const text = job('schedule: "0 8 * * *"').replace("name: j", 'name: "(websites)"');
    expect(issues(text)[0]).toContain("purchases[0].name");
  });
});
