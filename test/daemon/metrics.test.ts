// The daemon's metrics registry on its own: what Prometheus's promtool says of it, and ledger gauges that are
// absent (not 0) while the ledger cannot be read.
import { describe, expect, it } from "vitest";
import { parseMoney } from "../../src/money.js";
import { DaemonMetrics } from "../../src/server/metrics.js";
import { expectPromtoolClean, parsePrometheus, sampleValue } from "./prometheus.js";

const config = { budget: { daily_limit: parseMoney("50000.00"), min_wallet_balance: parseMoney("0.00") } };
const stats = {
  byState: { queued: 1, in_doubt: 2, unverified: 3, succeeded: 4 },
  spentToday: "1200.50",
  noted: { price_mismatch: 1, verify_mismatch: 0 },
  fires: [
    { job: "(websites)", status: "done", count: 2 },
    { job: "promo", status: "done", count: 5 },
    { job: "promo", status: "skipped", count: 3 },
  ],
  jobs: [
    { job: "promo", state: "suspended", lastFire: new Date("2026-11-26T08:00:00Z") },
    { job: "staff", state: "active", lastFire: null },
  ],
  lastWebsitePlan: { create: 1 },
  inDoubtOldestSeconds: 120,
  queuedToday: { purchases: 3, maxSpend: "1050.00", withoutMaxPrice: 1 },
};
const LEDGER = [
  "topsync_purchases",
  "topsync_purchases_in_doubt",
  "topsync_purchases_in_doubt_oldest_seconds",
  "topsync_purchases_queued_today",
  "topsync_queued_max_spend_today_naira",
  "topsync_purchases_unverified",
  "topsync_spend_today_naira",
  "topsync_budget_remaining_today_naira",
  "topsync_schedule_fires",
  "topsync_website_plan",
  "topsync_job_state",
  "topsync_job_last_fire_timestamp_seconds",
  "topsync_job_fires_total",
  "topsync_job_missed_fires_total",
];

async function scrape(metrics: DaemonMetrics) {
  const text = await metrics.registry.metrics();
  return { text, exposition: parsePrometheus(text) };
}

describe("daemon metrics", () => {
  it("leaves the ledger gauges out while the ledger cannot be read, and brings them back", async () => {
    const metrics = new DaemonMetrics(config as never);
    metrics.setLedger(stats, config as never);
    let { exposition } = await scrape(metrics);
    expect(sampleValue(exposition, "topsync_purchases_in_doubt")).toBe(2);
    expect(sampleValue(exposition, "topsync_budget_remaining_today_naira")).toBe(48799.5);
    expect(sampleValue(exposition, "topsync_purchases_in_doubt_oldest_seconds")).toBe(120);
    expect(sampleValue(exposition, "topsync_queued_max_spend_today_naira")).toBe(1050);
    expect(sampleValue(exposition, "topsync_budget_min_wallet_balance_naira")).toBe(0);

    metrics.setLedger(undefined, config as never);
    ({ exposition } = await scrape(metrics));
    expect(sampleValue(exposition, "topsync_database_up")).toBe(0);
    for (const name of LEDGER) {
      expect(
        exposition.samples.filter((s) => s.name === name),
        name,
      ).toEqual([]);
      expect(exposition.types.has(name), name).toBe(false);
    }
    expect(sampleValue(exposition, "topsync_budget_daily_limit_naira")).toBe(50000);

    metrics.setLedger({ ...stats, byState: { in_doubt: 0 } }, config as never);
    ({ exposition } = await scrape(metrics));
    expect(sampleValue(exposition, "topsync_database_up")).toBe(1);
    expect(sampleValue(exposition, "topsync_purchases_in_doubt")).toBe(0);
    expect(sampleValue(exposition, "topsync_schedule_fires", { job: "(websites)" })).toBe(2);
  });

  it("shows each job's fires, missed fires, last fire and state from the ledger", async () => {
    const metrics = new DaemonMetrics(config as never);
    metrics.setLedger(stats, config as never);
    const { exposition } = await scrape(metrics);
    expect(exposition.types.get("topsync_job_fires_total")).toBe("counter");
    expect(sampleValue(exposition, "topsync_job_fires_total", { job: "promo", outcome: "run" })).toBe(5);
    expect(sampleValue(exposition, "topsync_job_fires_total", { job: "promo", outcome: "skipped" })).toBe(3);
    expect(sampleValue(exposition, "topsync_job_missed_fires_total", { job: "promo" })).toBe(3);
    expect(sampleValue(exposition, "topsync_job_last_fire_timestamp_seconds", { job: "promo" })).toBe(
      Date.parse("2026-11-26T08:00:00Z") / 1000,
    );
    expect(sampleValue(exposition, "topsync_job_state", { job: "promo", state: "suspended" })).toBe(1);
    expect(sampleValue(exposition, "topsync_job_state", { job: "promo", state: "active" })).toBe(0);
    expect(sampleValue(exposition, "topsync_job_state", { job: "staff", state: "active" })).toBe(1);
    expect(sampleValue(exposition, "topsync_job_state", { job: "staff", state: "paused" })).toBe(0);
  });

  it("never lowers a counter read from the ledger as a fire runs and ends (a running fire is not a count)", async () => {
    const metrics = new DaemonMetrics(config as never);
    const fires = (running: number, done: number) => ({
      ...stats,
      fires: [
        { job: "promo", status: "running", count: running },
        { job: "promo", status: "done", count: done },
      ].filter((f) => f.count > 0),
    });
    metrics.setLedger(fires(1, 5), config as never);
    const before = (await scrape(metrics)).exposition;
    metrics.setLedger(fires(0, 6), config as never);
    const after = (await scrape(metrics)).exposition;
    for (const sample of before.samples) {
      if (before.types.get(sample.name) !== "counter") continue;
      const now = sampleValue(after, sample.name, sample.labels);
      expect(now, `${sample.name}${JSON.stringify(sample.labels)}`).toBeGreaterThanOrEqual(sample.value);
    }
    // a fire in progress is in the gauge of fires by status
    expect(sampleValue(before, "topsync_schedule_fires", { job: "promo", status: "running" })).toBe(1);
  });

  it("has no gauge named like a counter, and promtool check metrics passes", async () => {
    const metrics = new DaemonMetrics(config as never);
    metrics.setLedger(stats, config as never);
    metrics.fire("(websites)", "run");
    metrics.observer({ service: "reseller", endpoint: "data" } as never, "ok", 12);
    const { text, exposition } = await scrape(metrics);
    for (const [name, type] of exposition.types) {
      if (name.endsWith("_total")) expect(type, name).toBe("counter");
    }
    expect(exposition.types.get("topsync_nodejs_active_handles")).toBe("gauge");
    await expectPromtoolClean(text);
    metrics.setLedger(undefined, config as never);
    await expectPromtoolClean((await scrape(metrics)).text);
  });

  it("counts verify reads per purchase in a histogram", async () => {
    const metrics = new DaemonMetrics(config as never);
    for (const reads of [1, 1, 2, 0]) metrics.verified(reads);
    const { text, exposition } = await scrape(metrics);
    expect(exposition.types.get("topsync_verify_reads_per_purchase")).toBe("histogram");
    expect(sampleValue(exposition, "topsync_verify_reads_per_purchase_count")).toBe(4);
    expect(sampleValue(exposition, "topsync_verify_reads_per_purchase_sum")).toBe(4);
    expect(sampleValue(exposition, "topsync_verify_reads_per_purchase_bucket", { le: "1" })).toBe(3);
    await expectPromtoolClean(text);
  });
});
