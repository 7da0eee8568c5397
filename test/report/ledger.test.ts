// `topsync report`: spend by day, network and job, outcomes, latency, what needs a person with the command
// that settles it, failures by message and website passes — exact values, no writes, and an empty ledger.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type ReportFlags, reportCommand } from "../../src/cli/report-commands.js";
import type { Config } from "../../src/config/index.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { testConfig } from "../helpers/config.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";
import { captureIo, failureOf, fingerprint, withContext } from "./helpers.js";
import { seedLedger, TIME_ZONE } from "./seed.js";

let sandbox: Sandbox;
let test: TestDatabase;
let config: Config;

beforeAll(async () => {
  sandbox = await startSandbox({ verifyLag: "reads" });
  test = await openTestDatabase("postgres");
  config = testConfig(sandbox, { timezone: TIME_ZONE });
});
afterAll(async () => {
  await sandbox.close();
  await test.drop();
});
beforeEach(async () => {
  await test.database.db.execute(
    sql`truncate purchases, purchase_events, purchase_requests, budget_days, kv, jobs, website_ownership, website_runs
        restart identity cascade`,
  );
});

async function report(flags: ReportFlags = {}) {
  const io = captureIo();
  const code = await withContext(config, (ctx) => reportCommand(ctx, flags, { io, database: test.database }));
  return { code, text: io.stdout(), json: flags.format === "json" ? JSON.parse(io.stdout()) : undefined };
}

describe("topsync report", () => {
  it("reports spend, outcomes, latency, open purchases, failures and passes with exact values", async () => {
    const days = await seedLedger(test.database.db);
    const before = await fingerprint(test.database.db);
    const { code, json } = await report({ format: "json" });
    expect(code).toBe(0);
    expect(await fingerprint(test.database.db)).toEqual(before);
    expect(sandbox.requests()).toHaveLength(0);

    expect(json).toMatchObject({ format_version: "1", kind: "report", currency: "NGN", empty: null });
    const p = json.purchases;
    expect(p.total).toBe(7); // the purchase from 10 days ago is outside the period
    expect(p.by_state).toEqual([
      { state: "failed", count: 1, amount: "465.00" },
      { state: "in_doubt", count: 1, amount: "305.00" },
      { state: "rejected", count: 1, amount: "0.00" },
      { state: "succeeded", count: 3, amount: "915.00" },
      { state: "unverified", count: 1, amount: "168.00" },
    ]);
    expect(p).toMatchObject({ spent: "915.00", unsettled: "473.00", refunded: "465.00" });
    expect(p.success_rate).toEqual({ succeeded: 3, settled: 4, percent: 75 });
    expect(p.verification_latency_ms).toEqual({ samples: 4, p50: 2500, p95: 3850 });
    expect(p.by_day).toEqual([
      {
        day: days.d1,
        sent: 2,
        succeeded: 2,
        spent: "610.00",
        unsettled: "0.00",
        failed: 0,
        refunded: "0.00",
      },
      {
        day: days.d2,
        sent: 3,
        succeeded: 1,
        spent: "305.00",
        unsettled: "168.00",
        failed: 1,
        refunded: "465.00",
      },
      {
        day: days.today,
        sent: 1,
        succeeded: 0,
        spent: "0.00",
        unsettled: "305.00",
        failed: 0,
        refunded: "0.00",
      },
    ]);
    expect(p.by_network).toEqual([
      { network: "MTN", sent: 5, succeeded: 3, failed: 0, spent: "915.00", unsettled: "473.00" },
      { network: "GLO", sent: 1, succeeded: 0, failed: 1, spent: "0.00", unsettled: "0.00" },
    ]);
    expect(p.by_job.map((j: { job: string; sent: number }) => `${j.job}:${j.sent}`)).toEqual([
      "(buy):1",
      "(intake):1",
      "staff:4",
    ]);
    expect(p.failures).toEqual([
      { message: "Insufficient stock for <phone>", count: 1, amount: "465.00", refunded: "465.00" },
    ]);
    expect(
      json.open.map((o: { id: number; state: string; phone: string; settle: string }) => [
        o.id,
        o.state,
        o.phone,
        o.settle,
      ]),
    ).toEqual([
      [5, "in_doubt", "0803****005", 'topsync purchases resolve 5 --as succeeded|failed --note "…"'],
      [6, "unverified", "0803****006", 'topsync purchases resolve 6 --as succeeded|failed --note "…"'],
    ]);
    expect(json.open[0].age_ms).toBeGreaterThanOrEqual(2 * 3_600_000);
    expect(json.websites).toMatchObject({
      passes: 3,
      by_status: { failed: 1, ok: 2 },
      created: 1,
      deleted: 0,
    });
    expect(
      json.websites.shown.map((s: { status: string; changes: unknown[]; errors: string[] }) => [
        s.status,
        s.changes,
        s.errors,
      ]),
    ).toEqual([
      ["failed", [], ["listing the remote websites failed"]],
      ["ok", [{ action: "create", domain: "shop.example.org" }], []],
    ]);
  });

  it("prints aligned text: the facts, tables and the command that settles each open purchase", async () => {
    const days = await seedLedger(test.database.db);
    const { text } = await report();
    expect(text).toMatch(/^topsync report since \d{4}-\d{2}-\d{2} \d{2}:\d{2}\n=+\n/);
    expect(text).toContain("spent                 NGN 915.00 on 3 succeeded purchases");
    expect(text).toContain("success rate          75.0% (3 of 4 settled)");
    expect(text).toContain("verification latency  p50 2.5s, p95 3.9s (4 purchases, submitted → settled)");
    expect(text).toContain('2 purchases need a person: settle each with the command under "Needs a person".');
    expect(text).toMatch(
      new RegExp(`${days.d2}\\s+3\\s+1\\s+NGN 305\\.00\\s+NGN 168\\.00\\s+1\\s+NGN 465\\.00`),
    );
    expect(text).toMatch(/total\s+6\s+3\s+NGN 915\.00\s+NGN 473\.00\s+1\s+NGN 465\.00/);
    expect(text).toMatch(
      /5\s+in_doubt\s+2h\s+.+staff\s+0803\*\*\*\*005\s+102\s+NGN 305\.00\s+-\s+topsync purchases resolve 5 --as succeeded\|failed --note "…"/,
    );
    expect(text).toMatch(
      /6\s+unverified\s+1d\s+.+\(buy\)\s+0803\*\*\*\*006\s+101\s+NGN 168\.00\s+REF-UNVERIFIED-6/,
    );
    expect(text).toMatch(/Insufficient stock for <phone>\s+1\s+NGN 465\.00\s+NGN 465\.00/);
    expect(text).toContain("3 passes (1 failed, 2 ok): websites created 1, updated 0, deleted 0.");
    expect(text).toContain("create shop.example.org");
    expect(text).toContain("1 other pass is not listed (nothing to do, or older).");
    expect(text).not.toMatch(/0803111000[1-8]|08051234567/);
  });

  it("--show-phone prints phone numbers as stored", async () => {
    await seedLedger(test.database.db);
    const { text } = await report({ showPhone: true });
    expect(text).toMatch(/5\s+in_doubt\s+.+08031110005/);
    expect(text).toMatch(/6\s+unverified\s+.+08031110006/);
  });

  it("groups failures by the provider's message whatever number it names", async () => {
    await seedLedger(test.database.db);
    for (const [key, phone, message] of [
      ["f1", "08031110011", "FAILED: Gifting 1GB to 0803****011 was not completed by the network."],
      ["f2", "08031110012", "FAILED: Gifting 1GB to 08031110012 was not completed by the network."],
    ]) {
      await test.database.db.execute(
        sql`insert into purchases (request_key, source, network, phone, amount, state, provider_message, refund_amount, submitted_at)
            values (${key}, 'buy', 'MTN', ${phone}, 305.00, 'failed', ${message}, 305.00, now())`,
      );
    }
    const { json } = await report({ format: "json", showPhone: true });
    expect(json.purchases.failures).toEqual([
      {
        message: "FAILED: Gifting 1GB to <phone> was not completed by the network.",
        count: 2,
        amount: "610.00",
        refunded: "610.00",
      },
      { message: "Insufficient stock for <phone>", count: 1, amount: "465.00", refunded: "465.00" },
    ]);
  });

  it("says the ledger is empty when it is", async () => {
    for (const format of ["text", "markdown", "json", "html"]) {
      const { code, text } = await report({ format });
      expect(code).toBe(0);
      if (format === "json")
        expect(JSON.parse(text)).toMatchObject({ empty: "ledger", open: [], purchases: { total: 0 } });
      else
        expect(text).toContain(
          "The ledger is empty: topsync has not recorded any purchase or website pass yet.",
        );
    }
  });

  it("says nothing happened in the period when only older purchases exist", async () => {
    await seedLedger(test.database.db);
    await test.database.db.execute(sql`delete from purchases where request_key <> 'k8'`);
    await test.database.db.execute(sql`delete from website_runs`);
    const { text } = await report({ since: "24h" });
    expect(text).toMatch(
      /Nothing happened since \d{4}-\d{2}-\d{2} \d{2}:\d{2}: no purchases and no website passes\./,
    );
    expect(text).not.toContain("Spend by day");
  });

  it("draws the daily chart from the first purchase when --since reaches far before it, a month earlier at most", async () => {
    // Before, --since 100000d (since 1970) drew some 20,000 empty bars before the first purchase.
    const days = await seedLedger(test.database.db);
    const chartDays = (text: string) => {
      const chart = text.slice(text.indexOf("Spend by day:"));
      return [...chart.slice(0, chart.indexOf("\n\n")).matchAll(/^ {2}(\d{4}-\d{2}-\d{2}) /gm)].map(
        (m) => m[1],
      );
    };
    const far = chartDays((await report({ since: "100000d" })).text);
    const near = chartDays((await report({ since: "40d" })).text);
    // The first bar is the first day a purchase was sent (the seed's oldest is within 40 days), not 1970.
    expect(far[0]).not.toBe("1970-01-01");
    expect(far).toEqual(near.slice(near.indexOf(far[0]!)));
    expect(far).toContain(days.d1);
    expect(near.length).toBeGreaterThan(far.length);
    // A week's period keeps its empty days.
    const week = chartDays((await report({ since: "7d" })).text);
    expect(week.length).toBeGreaterThanOrEqual(7);
  });

  it("reads a --since date, or a time without an offset, on the config's clock, as it counts days", async () => {
    // Before: a date was UTC's midnight (01:00 in Lagos) and a time without an offset the machine's.
    expect((await report({ since: "2026-11-01" })).text).toMatch(/^topsync report since 2026-11-01 00:00\n/);
    expect((await report({ since: "2026-11-01T08:30" })).text).toMatch(
      /^topsync report since 2026-11-01 08:30\n/,
    );
  });

  it("a bad --since is a usage error naming the flag", async () => {
    const io = captureIo();
    const failure = await failureOf(
      withContext(config, (ctx) =>
        reportCommand(ctx, { since: "last week" }, { io, database: test.database }),
      ),
    );
    expect(failure.code).toBe(64);
    expect(failure.text).toContain(
      '--since must be a duration like 7d or 24h, or a real date like 2026-11-01; got "last week"',
    );
    expect(io.stdout()).toBe("");
  });
});
