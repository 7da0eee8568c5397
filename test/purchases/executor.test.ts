import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import { silentLogger } from "../../src/log/logger.js";
import { executePurchases } from "../../src/purchases/executor.js";
import { suspendJob } from "../../src/purchases/job-states.js";
import { insertPurchases, type NewPurchase } from "../../src/purchases/ledger.js";
import type { ResellerClient } from "../../src/reseller/client.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { resellerFor } from "../helpers/clients.js";
import { testConfig } from "../helpers/config.js";
import { DB_KINDS, openTestDatabase, type TestDatabase } from "../helpers/db.js";
import { waitFor } from "../helpers/wait.js";

const MTN_NUMBERS = (n: number, start = 0) =>
  Array.from({ length: n }, (_, i) => `0803${String(1_000_000 + start + i).padStart(7, "0")}`);

function purchase(phone: string, extra: Partial<NewPurchase> = {}): NewPurchase {
  return {
    request_key: `t:${phone}`,
    source: "buy",
    network: "MTN",
    plan_id: "102",
    phone,
    ported: false,
    ...extra,
  };
}

describe.each(DB_KINDS)("purchase executor on %s", (kind) => {
  let sandbox: Sandbox;
  let test: TestDatabase;
  let reseller: ResellerClient;

  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 11 });
  });
  afterAll(() => sandbox.close());
  beforeEach(async () => {
    sandbox.reset();
    test = await openTestDatabase(kind);
    reseller = resellerFor(sandbox);
  });
  afterEach(async () => {
    await reseller.close();
    await test.drop();
  });

  async function states() {
    const found = await rows<{ state: string; n: number }>(
      test.database.db,
      sql`select state, count(*)::int as n from purchases group by state order by state`,
    );
    return Object.fromEntries(found.map((r) => [r.state, r.n]));
  }

  it("buys each queued purchase once and verifies it to succeeded", async () => {
    const phones = MTN_NUMBERS(20);
    expect(
      await insertPurchases(
        test.database.db,
        phones.map((p) => purchase(p)),
        "test",
      ),
    ).toBe(20);
    expect(
      await insertPurchases(
        test.database.db,
        phones.map((p) => purchase(p)),
        "test",
      ),
    ).toBe(0);
    const config = testConfig(sandbox);
    const summary = await executePurchases({
      database: test.database,
      reseller,
      config,
      logger: silentLogger(),
    });
    expect(summary.submitted).toBe(20);
    expect(summary.succeeded).toBe(20);
    expect(summary.committed.toFixed(2)).toBe("6100.00");
    expect(await states()).toEqual({ succeeded: 20 });
    expect(sandbox.debits()).toHaveLength(20);
    const events = await rows<{ to_state: string; response: string | null; reference: string }>(
      test.database.db,
      sql`select e.to_state, e.response::text as response, p.reference from purchase_events e
          join purchases p on p.id = e.purchase_id
          where e.purchase_id = (select min(id) from purchases) order by e.id`,
    );
    expect(events.map((e) => e.to_state)).toEqual(["queued", "submitting", "submitted", "succeeded"]);
    // the provider's raw answers are kept: the purchase's (with its reference) and the verification's
    const [, , submitted, succeeded] = events;
    expect(submitted!.response).toContain(submitted!.reference);
    expect(succeeded!.response).toContain(submitted!.reference);
  });

  it("claims no more while as many purchases as its cap still verify, and buys them all", async () => {
    const phones = MTN_NUMBERS(20);
    await insertPurchases(
      test.database.db,
      phones.map((p) => purchase(p)),
      "test",
    );
    const config = testConfig(sandbox);
    // Verification slower than buying: each purchase is first read 60 ms after its answer.
    config.verification.initial_delay = 60;
    let most = 0;
    let watching = true;
    const watch = (async () => {
      while (watching) {
        const [row] = await rows<{ n: number }>(
          test.database.db,
          sql`select count(*)::int as n from purchases where state in ('submitting', 'submitted')`,
        );
        most = Math.max(most, row!.n);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const summary = await executePurchases(
      { database: test.database, reseller, config, logger: silentLogger() },
      { concurrency: 2, verifyingCap: 3 },
    );
    watching = false;
    await watch;
    expect(summary.succeeded).toBe(20);
    expect(sandbox.debits()).toHaveLength(20);
    // At most the cap verifying and one claim's worth (twice the concurrency) on its way.
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(3 + 4);
  });

  it("with a feed, waits for rows still being written and buys them too, however late they come", async () => {
    await insertPurchases(
      test.database.db,
      MTN_NUMBERS(5).map((p) => purchase(p)),
      "test",
    );
    const listeners: Array<() => void> = [];
    let finish!: () => void;
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    // The rest arrive after the first five are long bought: a run that ended when the queue first ran dry
    // would miss them.
    const writing = (async () => {
      await waitFor("the first five bought", async () => (await states()).succeeded === 5);
      for (const start of [5, 10]) {
        await insertPurchases(
          test.database.db,
          MTN_NUMBERS(5, start).map((p) => purchase(p)),
          "test",
        );
        for (const listener of listeners) listener();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      finish();
    })();
    const summary = await executePurchases(
      { database: test.database, reseller, config: testConfig(sandbox), logger: silentLogger() },
      { feed: { done, onRows: (listener) => listeners.push(listener) } },
    );
    await writing;
    expect(summary.succeeded).toBe(15);
    expect(sandbox.debits()).toHaveLength(15);
    expect(await states()).toEqual({ succeeded: 15 });
  });

  it("rejects what cannot be bought, naming the reason, and buys nothing for it", async () => {
    await insertPurchases(
      test.database.db,
      [
        purchase("12345", { request_key: "bad-phone" }),
        purchase("08051234567", { request_key: "glo-number" }),
        purchase("08031230000", { request_key: "no-plan", plan_id: "999" }),
        purchase("08031230001", { request_key: "too-dear", max_price: "300.00" }),
        purchase("08031230002", { request_key: "no-network", network: "VODAFONE" }),
      ],
      "test",
    );
    const summary = await executePurchases({
      database: test.database,
      reseller,
      config: testConfig(sandbox),
      logger: silentLogger(),
    });
    expect(summary.rejected).toBe(5);
    const reasons = await rows<{ request_key: string; reason: string }>(
      test.database.db,
      sql`select request_key, reason from purchases order by request_key`,
    );
    const byKey = Object.fromEntries(reasons.map((r) => [r.request_key, r.reason]));
    expect(byKey["bad-phone"]).toMatch(/^invalid_phone: /);
    expect(byKey["glo-number"]).toMatch(/^wrong_network: .*0805 is GLO, not MTN/);
    expect(byKey["no-plan"]).toMatch(/^plan_not_found: no MTN plan matches plan_id 999/);
    expect(byKey["too-dear"]).toMatch(/^price_above_max: plan 102 costs 305.00, above max_price 300.00/);
    expect(byKey["no-network"]).toMatch(/^unknown_network/);
    expect(sandbox.debits()).toHaveLength(0);
  });

  it("holds the daily budget exactly and rejects the rest", async () => {
    await insertPurchases(
      test.database.db,
      MTN_NUMBERS(10).map((p) => purchase(p)),
      "test",
    );
    const config = testConfig(sandbox, { budget: { daily_limit: "1000.00" } });
    const summary = await executePurchases({
      database: test.database,
      reseller,
      config,
      logger: silentLogger(),
    });
    expect(summary.submitted).toBe(3); // 3 × 305 = 915 ≤ 1000 < 1220
    expect(summary.rejected).toBe(7);
    expect(sandbox.debits()).toHaveLength(3);
    const [reason] = await rows<{ reason: string }>(
      test.database.db,
      sql`select reason from purchases where state = 'rejected' limit 1`,
    );
    expect(reason!.reason).toMatch(/^daily_budget: /);
  });

  it("classifies every purchase outcome: not sent and 429 retry, 4xx fail, unknown is in_doubt", async () => {
    const cases: Array<[string, Record<string, number>, string]> = [
      ["500 before", { rate500Before: 1 }, "in_doubt"],
      ["500 after", { rate500After: 1 }, "in_doubt"],
      ["reset after", { rateResetAfter: 1 }, "in_doubt"],
      ["malformed after", { rateMalformedAfter: 1 }, "in_doubt"],
      ["hang after", { rateHangAfter: 1 }, "in_doubt"],
      ["gateway timeout after (504)", { rateTimeoutAfter: 1, timeoutAfterMs: 20 }, "in_doubt"],
    ];
    for (const [name, fault, expected] of cases) {
      sandbox.reset();
      sandbox.setFaults({ endpoints: { data: fault } });
      const [phone] = MTN_NUMBERS(
        1,
        cases.findIndex((c) => c[0] === name),
      );
      await insertPurchases(test.database.db, [purchase(phone!, { request_key: name })], "test");
      await executePurchases({
        database: test.database,
        reseller,
        config: testConfig(sandbox),
        logger: silentLogger(),
      });
      const [row] = await rows<{ state: string }>(
        test.database.db,
        sql`select state from purchases where request_key = ${name}`,
      );
      expect([name, row!.state]).toEqual([name, expected]);
      expect(sandbox.requests().filter((r) => r.path === "/public/api/data")).toHaveLength(1);
    }
  });

  it("counts a purchase sent again after a 429 once against the per-run budget", async () => {
    // Two purchases of 305.00 under a per-run budget of 700.00. Each is first answered 429 (not processed) and
    // bought when sent again; before, the run's spend kept the amount of the answer that spent nothing, so the second
    // claims found 305 + 305 + 305 "this run" and rejected the second purchase with run_budget.
    sandbox.setFaults({ endpoints: { data: { rate429: 1, retryAfter: 1 } } });
    await insertPurchases(
      test.database.db,
      MTN_NUMBERS(2).map((p) => purchase(p)),
      "test",
    );
    const refused = waitFor(
      "both purchases answered 429",
      () => sandbox.requests().filter((r) => r.path === "/public/api/data").length >= 2,
    );
    const running = executePurchases({
      database: test.database,
      reseller,
      config: testConfig(sandbox, { budget: { per_run_limit: "700.00" } }),
      logger: silentLogger(),
    });
    await refused;
    sandbox.setFaults({ endpoints: {} });
    const summary = await running;
    expect(summary.retried).toBe(2);
    expect(await states()).toEqual({ succeeded: 2 });
    expect(sandbox.debits()).toHaveLength(2);
    expect(summary.committed.toFixed(2)).toBe("610.00");
  });

  it("ends, leaving it queued, when the job of a purchase waiting out a 429 is suspended meanwhile", async () => {
    // The wait for the run's retries counted the suspended job's row, which no claim takes: the run went round
    // claiming nothing and waiting for it again, never ending.
    sandbox.setFaults({ endpoints: { data: { rate429: 1, retryAfter: 2 } } });
    await insertPurchases(
      test.database.db,
      [purchase(MTN_NUMBERS(1)[0]!, { source: "job", job_name: "promo" })],
      "test",
    );
    const refused = waitFor("the purchase answered 429", () =>
      sandbox.requests().some((r) => r.path === "/public/api/data"),
    );
    const stop = new AbortController();
    const running = executePurchases(
      {
        database: test.database,
        reseller,
        config: testConfig(sandbox),
        logger: silentLogger(),
      },
      { signal: stop.signal },
    );
    await refused;
    await suspendJob(test.database.db, "promo", { actor: "test", reason: "campaign stopped" });
    const ended = await Promise.race([
      running.then(() => "ended"),
      new Promise((resolve) => setTimeout(() => resolve("still running 30 s later"), 30_000)),
    ]);
    stop.abort();
    await running;
    expect(ended).toBe("ended");
    expect(await states()).toEqual({ queued: 1 });
    expect(sandbox.requests().filter((r) => r.path === "/public/api/data")).toHaveLength(1);
  });

  it("retries a 429 and a refused connection, then buys once", async () => {
    sandbox.setFaults({ seed: 2, endpoints: { data: { rate429: 0.5, retryAfter: 0 } } });
    await insertPurchases(
      test.database.db,
      MTN_NUMBERS(10).map((p) => purchase(p)),
      "test",
    );
    const summary = await executePurchases({
      database: test.database,
      reseller,
      config: testConfig(sandbox),
      logger: silentLogger(),
    });
    expect(summary.retried).toBeGreaterThan(0);
    const final = await states();
    expect((final.succeeded ?? 0) + (final.failed ?? 0)).toBe(10);
    expect(sandbox.debits()).toHaveLength(final.succeeded ?? 0);
  });

  it("stopped by its signal, a run gives back what it claimed but had not sent", async () => {
    await insertPurchases(
      test.database.db,
      MTN_NUMBERS(10).map((p) => purchase(p)),
      "test",
    );
    sandbox.setOptions({ latencyMs: 300 });
    const stop = new AbortController();
    const sent = waitFor("the first purchase POST", () =>
      sandbox.requests().some((r) => r.path === "/public/api/data"),
    );
    const running = executePurchases(
      { database: test.database, reseller, config: testConfig(sandbox), logger: silentLogger() },
      { concurrency: 1, signal: stop.signal },
    );
    await sent; // the first purchase is on the wire; the second one claimed with it waits for the only place
    stop.abort();
    const summary = await running;
    expect(summary.unsent).toBe(1);
    expect(sandbox.requests().filter((r) => r.path === "/public/api/data")).toHaveLength(1);
    const final = await states();
    expect(final.submitting).toBeUndefined();
    expect(final.queued).toBe(9);
    const [back] = await rows<{ attempts: number; reason: string }>(
      test.database.db,
      sql`select p.attempts, e.reason from purchases p join purchase_events e on e.purchase_id = p.id
          where e.from_state = 'submitting' and e.to_state = 'queued'`,
    );
    expect(back).toEqual({ attempts: 0, reason: "not sent: the run was stopped" });
  });

  it("fails on 401 and stops sending", async () => {
    await insertPurchases(
      test.database.db,
      MTN_NUMBERS(30).map((p) => purchase(p)),
      "test",
    );
    const wrong = resellerFor(sandbox);
    sandbox.setOptions({ apiKey: "another-key" });
    const config = testConfig(sandbox, {});
    const summary = await executePurchases({
      database: test.database,
      reseller: wrong,
      config,
      logger: silentLogger(),
    }).catch((e: Error) => e);
    // the catalogue read itself is refused: nothing is claimed, nothing sent
    expect(summary).toBeInstanceOf(Error);
    expect((summary as Error).message).toContain("reseller.api_key");
    expect(await states()).toEqual({ queued: 30 });
    await wrong.close();
  });

  it("records failed and reversed purchases with their refund", async () => {
    sandbox.setOptions({ failRate: 0.3, reverseRate: 0.3 });
    await insertPurchases(
      test.database.db,
      MTN_NUMBERS(20).map((p) => purchase(p)),
      "test",
    );
    await executePurchases({
      database: test.database,
      reseller,
      config: testConfig(sandbox),
      logger: silentLogger(),
    });
    const failed = await rows<{ n: number; refunds: string }>(
      test.database.db,
      sql`select count(*)::int as n, coalesce(sum(refund_amount), 0)::text as refunds from purchases where state = 'failed'`,
    );
    expect(failed[0]!.n).toBe(sandbox.refunds().length);
    expect(failed[0]!.n).toBeGreaterThan(0);
    expect(Number(failed[0]!.refunds)).toBe(305 * failed[0]!.n);
    const [budget] = await rows<{ committed: string }>(
      test.database.db,
      sql`select committed::text from budget_days`,
    );
    expect(budget!.committed).toBe((305 * (20 - failed[0]!.n)).toFixed(2));
  });
});

describe.each(DB_KINDS)("the rest of the classification table on %s", (kind) => {
  let sandbox: Sandbox;
  let test: TestDatabase;

  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 12 });
  });
  afterAll(() => sandbox.close());
  beforeEach(async () => {
    sandbox.reset();
    test = await openTestDatabase(kind);
  });
  afterEach(() => test.drop());

  async function catalogueOf() {
    const reseller = resellerFor(sandbox);
    try {
      const { loadCatalogue } = await import("../../src/purchases/catalogue-cache.js");
      return await loadCatalogue(reseller, silentLogger());
    } finally {
      await reseller.close();
    }
  }

  async function stateOf(key: string) {
    const [row] = await rows<{ state: string; attempts: number; provider_message: string | null }>(
      test.database.db,
      sql`select state, attempts, provider_message from purchases where request_key = ${key}`,
    );
    return row!;
  }

  it("not sent (connection refused): retried up to max_attempts, then failed; no money moved", async () => {
    const catalogue = await catalogueOf();
    const closed = resellerFor({ resellerUrl: "http://127.0.0.1:1", apiKey: "k-0000" });
    await insertPurchases(
      test.database.db,
      [purchase("08031112222", { request_key: "refused", max_attempts: 3 })],
      "test",
    );
    const summary = await executePurchases(
      { database: test.database, reseller: closed, config: testConfig(sandbox), logger: silentLogger() },
      { catalogue },
    );
    await closed.close();
    expect(summary.retried).toBe(2);
    const row = await stateOf("refused");
    expect([row.state, row.attempts]).toEqual(["failed", 3]);
    expect(row.provider_message).toMatch(/^gave up after 3 attempts, none processed: not sent: /);
  });

  it("401 on the purchase: failed, and the run stops sending the rest", async () => {
    const catalogue = await catalogueOf();
    sandbox.setOptions({ apiKey: "rotated-key" });
    const reseller = resellerFor({ resellerUrl: sandbox.resellerUrl, apiKey: "old-key-0000" });
    await insertPurchases(
      test.database.db,
      MTN_NUMBERS(40).map((p) => purchase(p)),
      "test",
    );
    const config = testConfig(sandbox, {});
    const summary = await executePurchases(
      { database: test.database, reseller, config, logger: silentLogger() },
      { catalogue, concurrency: 2 },
    );
    await reseller.close();
    expect(summary.stoppedBy).toContain("check reseller.api_key");
    const counts = await rows<{ state: string; n: number }>(
      test.database.db,
      sql`select state, count(*)::int as n from purchases group by state`,
    );
    const byState = Object.fromEntries(counts.map((c) => [c.state, c.n]));
    expect(byState.failed).toBeLessThanOrEqual(2); // only the calls already in flight
    expect(byState.queued).toBeGreaterThanOrEqual(38);
    expect(sandbox.requests().filter((r) => r.path === "/public/api/data").length).toBeLessThanOrEqual(2);
    // Purchases claimed ahead of the sends and not yet sent when the 401 came back go back to the queue as they
    // were: no attempt counted, their budget given back, the reason on record.
    const givenBack = await rows<{ attempts: number; reason: string }>(
      test.database.db,
      sql`select p.attempts, e.reason from purchases p join purchase_events e on e.purchase_id = p.id
          where e.from_state = 'submitting' and e.to_state = 'queued'`,
    );
    expect(summary.unsent).toBe(2); // concurrency 2 claims up to 4 ahead
    expect(givenBack.length).toBe(summary.unsent);
    for (const back of givenBack) {
      expect(back.attempts).toBe(0);
      expect(back.reason).toMatch(/^not sent: .*check reseller.api_key/);
    }
    const [budget] = await rows<{ committed: string }>(
      test.database.db,
      sql`select coalesce(sum(committed), 0)::text as committed from budget_days`,
    );
    expect(Number(budget?.committed)).toBe(0);
  });

  it("another 4xx (402 insufficient balance): failed with the provider's message", async () => {
    sandbox.setOptions({ walletBalance: "100.00" });
    const reseller = resellerFor(sandbox);
    await insertPurchases(test.database.db, [purchase("08031113333", { request_key: "poor" })], "test");
    await executePurchases({
      database: test.database,
      reseller,
      config: testConfig(sandbox),
      logger: silentLogger(),
    });
    await reseller.close();
    const row = await stateOf("poor");
    expect(row.state).toBe("failed");
    expect(row.provider_message).toContain("HTTP 402: Insufficient balance.");
    expect(sandbox.debits()).toHaveLength(0);
  });

  it("no final status before the timeout: unverified, and a later run finishes verifying it", async () => {
    sandbox.setOptions({ verifyPendingPolls: 1000 });
    const reseller = resellerFor(sandbox);
    await insertPurchases(test.database.db, [purchase("08031114444", { request_key: "slow" })], "test");
    const config = testConfig(sandbox, {
      verification: { initial_delay: "5ms", timeout: "100ms", max_interval: "20ms", horizon: "72h" },
    });
    const first = await executePurchases({
      database: test.database,
      reseller,
      config,
      logger: silentLogger(),
    });
    expect(first.unverified).toBe(1);
    expect((await stateOf("slow")).state).toBe("unverified");
    sandbox.setOptions({ verifyPendingPolls: 0 });
    await new Promise((resolve) => setTimeout(resolve, 250)); // the next check is due after 10 × max_interval
    await executePurchases({ database: test.database, reseller, config, logger: silentLogger() });
    await reseller.close();
    expect((await stateOf("slow")).state).toBe("succeeded");
    expect(sandbox.debits()).toHaveLength(1);
  });
});
