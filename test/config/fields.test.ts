import { describe, expect, it } from "vitest";
import { canonicalTimeZone } from "../../src/config/fields.js";
import { issues, load, yaml } from "./helpers.js";

const job = (...lines: string[]) =>
  yaml(
    "purchases:",
    "  - name: a",
    "    plan: { network: MTN, plan_id: '1' }",
    "    recipients: ['08031234567']",
    ...lines,
  );

describe("durations", () => {
  it("reads every unit and combinations into milliseconds", () => {
    const { config } = load(
      yaml(
        "verification:",
        "  initial_delay: 500ms",
        "  timeout: 1h30m",
        "  max_interval: 1.5s",
        "  horizon: 7d",
      ),
    );
    expect(config.verification).toEqual({
      initial_delay: 500,
      timeout: 5_400_000,
      max_interval: 1500,
      horizon: 7 * 86_400_000,
      learn_settle: true,
      notification_wait: 30_000,
    });
  });

  it("refuses a bare number and suggests a unit", () => {
    expect(issues(yaml("verification:", "  timeout: 30"))).toEqual([
      'config.yaml:8:12: verification.timeout: expected a duration with a unit (500ms, 30s, 10m, 24h, 7d), got 30; did you mean "30s"?',
    ]);
  });

  it("refuses text that is not a duration", () => {
    expect(issues(yaml("verification:", "  timeout: ten minutes"))).toEqual([
      'config.yaml:8:12: verification.timeout: expected a duration like "500ms", "30s", "10m" or "24h", got "ten minutes"',
    ]);
    expect(issues(yaml("server:", "  shutdown_grace: 5 s"))).toEqual([
      'config.yaml:8:19: server.shutdown_grace: expected a duration like "500ms", "30s", "10m" or "24h", got "5 s"',
    ]);
  });

  it("refuses a duration longer than a timer can wait, and a span beyond ten years", () => {
    // Before, accepted: Node.js fires a timer of more than 24.8 days at once, so every call timed out at once.
    expect(
      issues(yaml("verification:", "  timeout: 99999999999d", "server:", "  shutdown_grace: 25d")),
    ).toEqual([
      'config.yaml:8:12: verification.timeout: must be at most 24d, got "99999999999d"',
      'config.yaml:10:19: server.shutdown_grace: must be at most 24d, got "25d"',
    ]);
    // Durations that only date times may be long, not past what a date can hold.
    expect(load(yaml("verification:", "  horizon: 400d")).config.verification.horizon).toBe(400 * 86_400_000);
    expect(issues(yaml("verification:", "  horizon: 99999999999d"))).toEqual([
      'config.yaml:8:12: verification.horizon: must be at most 3650d, got "99999999999d"',
    ]);
  });

  it("refuses a zero timeout and a retry ceiling below its base", () => {
    expect(issues(yaml("  timeout: { connect: 0s }", "  retry: { base_delay: 2s, max_delay: 1s }"))).toEqual([
      'config.yaml:7:23: analytics.timeout.connect: must be at least 1ms, got "0s"',
      "config.yaml:8:39: analytics.retry.max_delay: must not be shorter than base_delay",
    ]);
  });
});

describe("money", () => {
  it("keeps quoted and unquoted amounts exact", () => {
    const { config } = load(
      yaml("budget:", '  daily_limit: "350.10"', "  per_run_limit: 350.10", "  min_wallet_balance: 0.1"),
    );
    expect(config.budget.daily_limit?.toFixed(2)).toBe("350.10");
    expect(config.budget.per_run_limit?.toFixed(2)).toBe("350.10");
    expect(config.budget.min_wallet_balance.toString()).toBe("0.1");
  });

  it("keeps amounts exact up to the most the ledger holds", () => {
    const { config } = load(yaml("budget:", "  daily_limit: 999999999999.99"));
    expect(config.budget.daily_limit?.toFixed(2)).toBe("999999999999.99");
  });

  it("refuses three decimal places", () => {
    expect(issues(yaml("budget:", "  daily_limit: 12.345"))).toEqual([
      'config.yaml:8:16: budget.daily_limit: expected a decimal amount like "350.00", got "12.345"',
    ]);
    expect(issues(yaml("budget:", '  daily_limit: "12.345"'))).toEqual([
      'config.yaml:8:16: budget.daily_limit: expected a decimal amount like "350.00", got "12.345"',
    ]);
  });

  it("refuses text, negative amounts and exponents", () => {
    expect(
      issues(
        yaml("budget:", "  daily_limit: lots", "  per_run_limit: -20.00", "  min_wallet_balance: 1e3"),
        {},
      ),
    ).toEqual([
      'config.yaml:8:16: budget.daily_limit: expected a decimal amount like "350.00", got "lots"',
      'config.yaml:9:18: budget.per_run_limit: expected a decimal amount like "350.00", got "-20.00" (amounts cannot be negative)',
      'config.yaml:10:23: budget.min_wallet_balance: expected a decimal amount like "350.00", got "1e3"',
    ]);
  });

  it("checks a job's max_price the same way", () => {
    expect(issues(job("    max_price: 305.005"))).toEqual([
      'config.yaml:11:16: purchases[0].max_price (job "a"): expected a decimal amount like "350.00", got "305.005"',
    ]);
  });
});

describe("schedules and time zones", () => {
  it("refuses a job with both schedule and at", () => {
    expect(issues(job('    schedule: "0 8 1 * *"', "    at: 2026-12-01T08:00:00+01:00"))).toEqual([
      'config.yaml:12:9: purchases[0].at (job "a"): give either schedule or at, not both',
    ]);
  });

  it("refuses a cron expression node-cron does not accept", () => {
    expect(issues(job('    schedule: "61 8 1 * *"'))).toEqual([
      'config.yaml:11:15: purchases[0].schedule (job "a"): "61 8 1 * *" is not a valid cron expression (61 is a invalid expression for minute); use five fields (minute hour day-of-month month day-of-week, e.g. "0 8 1 * *") or six with seconds first; in each field *, a number, a range 1-5, a list 1,15, a step */10 or 9-17/2; month and weekday names (jan, mon); in day-of-month L (last day), L-3, 15W and LW (nearest weekday); in day-of-week 5L (last Friday) and 1#2 (second Monday); ? in either day field; or @hourly, @daily, @weekly, @monthly, @yearly',
    ]);
    expect(issues(yaml("websites:", "  schedule: every day"))).toEqual([
      'config.yaml:8:13: websites.schedule: "every day" is not a valid cron expression (expected 5 or 6 fields but got 2); use five fields (minute hour day-of-month month day-of-week, e.g. "0 8 1 * *") or six with seconds first; in each field *, a number, a range 1-5, a list 1,15, a step */10 or 9-17/2; month and weekday names (jan, mon); in day-of-month L (last day), L-3, 15W and LW (nearest weekday); in day-of-week 5L (last Friday) and 1#2 (second Monday); ? in either day field; or @hourly, @daily, @weekly, @monthly, @yearly',
    ]);
  });

  it("refuses an `at` without an offset, or not a real date", () => {
    expect(issues(job("    at: 2026-12-01T08:00:00"))).toEqual([
      'config.yaml:11:9: purchases[0].at (job "a"): expected an ISO time with an offset, like "2026-12-01T08:00:00+01:00", got "2026-12-01T08:00:00"',
    ]);
    expect(issues(job("    at: 2026-02-30T08:00:00Z"))).toEqual([
      'config.yaml:11:9: purchases[0].at (job "a"): "2026-02-30T08:00:00Z" is not a real date and time',
    ]);
  });

  it("refuses an unknown time zone, globally and per job", () => {
    expect(issues(job("    timezone: Lagos"))).toEqual([
      'config.yaml:11:15: purchases[0].timezone (job "a"): unknown time zone "Lagos" (use an IANA name like "Africa/Lagos" or "UTC")',
    ]);
    expect(issues(yaml("timezone: WAT/Lagos"))).toEqual([
      'config.yaml:7:11: timezone: unknown time zone "WAT/Lagos" (use an IANA name like "Africa/Lagos" or "UTC")',
    ]);
  });

  it("accepts six-field cron with seconds and outputs a canonical time zone", () => {
    const { config } = load(job('    schedule: "0 0 8 1 * *"', "    timezone: utc"));
    expect(config.purchases[0]?.schedule).toBe("0 0 8 1 * *");
    expect(config.purchases[0]?.timezone).toBe("UTC");
  });

  it("names every time zone as Intl.DateTimeFormat does, in any case, aliases too", () => {
    const names = [
      ...Intl.supportedValuesOf("timeZone").flatMap((zone) => [zone, zone.toLowerCase(), zone.toUpperCase()]),
      ...["utc", "UTC", "Etc/UTC", "etc/utc", "GMT", "EST", "Asia/Calcutta", "US/Eastern", "Africa/Lagos"],
    ];
    const intl = (zone: string) =>
      new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone;
    for (const name of names) expect(canonicalTimeZone(name), name).toBe(intl(name));
    expect(canonicalTimeZone("Lagos/Nowhere")).toBeUndefined();
  });
});

describe("purchase jobs", () => {
  it("refuses duplicate job names, naming both positions", () => {
    const text = yaml(
      "purchases:",
      "  - name: staff",
      "    plan: { network: MTN, plan_id: '1' }",
      "    recipients: ['08031234567']",
      "  - name: other",
      "    plan: { network: MTN, plan_id: '1' }",
      "    recipients: ['08031234567']",
      "  - name: staff",
      "    plan: { network: MTN, plan_id: '2' }",
      "    recipients_file: x.csv",
    );
    expect(issues(text)).toEqual([
      'config.yaml:14:11: purchases[2].name: job name "staff" is declared twice: line 8 (purchases[0].name) and line 14 (purchases[2].name)',
    ]);
  });

  it("refuses a plan with both plan_id and a selector, or neither", () => {
    expect(
      issues(
        yaml(
          "purchases:",
          "  - name: a",
          "    plan: { network: MTN, plan_id: '1', size: 1GB }",
          "    recipients: ['08031234567']",
          "  - name: b",
          "    plan: { network: MTN }",
          "    recipients: ['08031234567']",
        ),
      ),
    ).toEqual([
      'config.yaml:9:47: purchases[0].plan.size (job "a"): give either plan_id or a selector (size, type, name_contains), not both',
      'config.yaml:12:11: purchases[1].plan (job "b"): needs plan_id, or a selector with size (and optionally type and name_contains)',
    ]);
  });

  it("reports a value of the wrong type once, without follow-on rule messages", () => {
    expect(
      issues(
        yaml("purchases:", "  - name: a", "    plan: 12", "    recipients: 08031234567", "  - just-a-name"),
      ),
    ).toEqual([
      'config.yaml:9:11: purchases[0].plan (job "a"): expected a mapping, got "12"',
      'config.yaml:10:17: purchases[0].recipients (job "a"): expected a list, got "08031234567"',
      'config.yaml:11:5: purchases[1]: expected a mapping, got "just-a-name"',
    ]);
  });

  it("requires a network with a selector; a plan id alone finds its network at run time", () => {
    expect(load(job().replace("network: MTN, ", "")).config.purchases[0]!.plan).toEqual({
      kind: "id",
      network: "",
      plan_id: "1",
    });
    expect(issues(job().replace("network: MTN, plan_id: '1'", "size: 1GB"))).toEqual([
      'config.yaml:9:5: purchases[0].plan.network (job "a"): is required with a selector (size, type, name_contains); only a plan_id finds its own network',
    ]);
  });

  it("refuses a recipient that is not a phone number", () => {
    expect(
      issues(job("    recipients_file: ''").replace("'08031234567'", "'call me', {phone: '0803'}")),
    ).toEqual([
      'config.yaml:10:18: purchases[0].recipients[0] (job "a"): expected a phone number like "08031234567" or "+2348031234567"',
      'config.yaml:10:37: purchases[0].recipients[1].phone (job "a"): expected a phone number like "08031234567" or "+2348031234567"',
      'config.yaml:11:22: purchases[0].recipients_file (job "a"): must not be empty',
    ]);
  });
});
