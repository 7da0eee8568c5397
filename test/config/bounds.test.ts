import { describe, expect, it } from "vitest";
import { issues, load, yaml } from "./helpers.js";

describe("money the ledger can hold", () => {
  it("refuses a budget limit or max_price beyond numeric(14,2), stating the limit", () => {
    expect(
      issues(
        yaml(
          "budget:",
          '  daily_limit: "1000000000000.00"',
          "purchases:",
          "  - name: big",
          "    plan: { network: MTN, plan_id: 101 }",
          "    max_price: 1000000000000",
          "    recipients: ['08031234567']",
        ),
      ),
    ).toEqual([
      'config.yaml:8:16: budget.daily_limit: must be at most 999999999999.99 (the most the ledger\'s money columns hold), got "1000000000000.00"',
      'config.yaml:12:16: purchases[0].max_price (job "big"): must be at most 999999999999.99 (the most the ledger\'s money columns hold), got "1000000000000"',
    ]);
  });

  it("accepts the largest amount the columns hold", () => {
    const { config } = load(yaml("budget:", "  per_run_limit: 999999999999.99"));
    expect(config.budget.per_run_limit?.toFixed(2)).toBe("999999999999.99");
  });
});

describe("a whole call's deadline and an answer's size", () => {
  it("reads timeout.total and max_body, with their defaults", () => {
    const { config } = load(
      yaml("  timeout: { connect: 1s, total: 90s }", "  max_body: 512KiB", "database:", "  url: ''"),
    );
    expect(config.analytics.timeout).toEqual({ connect: 1000, headers: 15000, body: 15000, total: 90000 });
    expect(config.analytics.max_body).toBe(512 * 1024);
    expect(config.reseller.timeout.total).toBe(60000);
    expect(config.reseller.max_body).toBe(1024 * 1024);
  });

  it("refuses a size it cannot read or out of range", () => {
    expect(issues(yaml("  max_body: lots"))).toEqual([
      'config.yaml:7:13: analytics.max_body: expected a size like "1MiB", "512KiB" or a number of bytes from 1024 to 1073741824, got "lots"',
    ]);
    expect(issues(yaml("  max_body: 10"))).toEqual([
      'config.yaml:7:13: analytics.max_body: expected a size like "1MiB", "512KiB" or a number of bytes from 1024 to 1073741824, got "10"',
    ]);
  });
});
