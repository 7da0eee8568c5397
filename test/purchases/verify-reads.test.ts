// Verify reads under the provider's rate limit, over real HTTP against the sandbox: the first read waits as long
// as the network's purchases have lately taken to settle, so later purchases cost fewer reads; where notifications
// are received, the read of the notification settles the purchase and the run's own verification makes none; and
// a backlog of verifications never starves new purchase POSTs at the rate limit, while every verification still
// ends with its final status.
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import { rows } from "../../src/db/client.js";
import { silentLogger } from "../../src/log/logger.js";
import { executePurchases } from "../../src/purchases/executor.js";
import { insertPurchases, type NewPurchase } from "../../src/purchases/ledger.js";
import { notificationDeps, processNotification } from "../../src/purchases/notifications.js";
import { SettleTimes, settleBounds } from "../../src/purchases/settle-times.js";
import { SettleWatch } from "../../src/purchases/settle-watch.js";
import { VerifyReadTally } from "../../src/purchases/verifier.js";
import type { ResellerClient } from "../../src/reseller/client.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { type HealthServer, startHealthServer } from "../../src/server/health.js";
import { Readiness } from "../../src/server/readiness.js";
import { createWebhookReceiver } from "../../src/server/webhook.js";
import { freePort } from "../daemon/helpers.js";
import { resellerFor } from "../helpers/clients.js";
import { testConfig } from "../helpers/config.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";
import { waitFor } from "../helpers/wait.js";

const SECRET = "sandbox-webhook-secret";

const MTN_NUMBERS = (n: number, start = 0) =>
  Array.from({ length: n }, (_, i) => `0803${String(1_000_000 + start + i).padStart(7, "0")}`);

const purchase = (phone: string): NewPurchase => ({
  request_key: `reads:${phone}`,
  source: "buy",
  network: "MTN",
  plan_id: "102",
  phone,
  ported: false,
});

describe("verify reads, on postgres", () => {
  let sandbox: Sandbox;
  let test: TestDatabase;
  let reseller: ResellerClient;

  beforeAll(async () => {
    sandbox = await startSandbox({ seed: 31 });
  });
  afterAll(() => sandbox.close());
  beforeEach(async () => {
    test = await openTestDatabase("postgres");
  });
  afterEach(async () => {
    await reseller?.close();
    (reseller as ResellerClient | undefined) = undefined;
    await test.drop();
  });

  const verifyReads = () =>
    sandbox.requests().filter((r) => r.path.startsWith("/public/api/transaction/")).length;
  const posts = () => sandbox.requests().filter((r) => r.method === "POST").length;
  const states = async () => {
    const found = await rows<{ state: string; n: number }>(
      test.database.db,
      sql`select state, count(*)::int as n from purchases group by state order by state`,
    );
    return Object.fromEntries(found.map((r) => [r.state, r.n]));
  };

  it("waits as long as the network's purchases lately took to settle: later purchases cost fewer reads", async () => {
    // Each purchase is pending for a second after it is bought, however often it is read.
    sandbox.reset({ verifyLag: "time", verifyNotFoundMs: 0, verifyPendingMs: 1000, verifyLagJitter: 0 });
    reseller = resellerFor(sandbox);
    const config = testConfig(sandbox, {
      verification: { initial_delay: "5ms", timeout: "10s", max_interval: "2s", horizon: "72h" },
    });
    const fixed = { ...config, verification: { ...config.verification, learn_settle: false } };
    const run = async (batch: number, settleTimes?: SettleTimes) => {
      await insertPurchases(
        test.database.db,
        MTN_NUMBERS(8, batch * 8).map((p) => purchase(p)),
        "test",
      );
      const before = verifyReads();
      const summary = await executePurchases({
        database: test.database,
        reseller,
        config: settleTimes ? config : fixed,
        logger: silentLogger(),
        verifying: { settleTimes },
      });
      expect(summary.succeeded).toBe(8);
      return verifyReads() - before;
    };
    // Read first after initial_delay, with the backoff up to max_interval: many reads per purchase.
    const polled = await run(0);
    expect(polled).toBeGreaterThan(8 * 3);
    // Learning: the first runs find the settle time, the next reads each purchase about once.
    const settleTimes = new SettleTimes(settleBounds(config.verification));
    await run(1, settleTimes);
    expect(settleTimes.firstRead("1")).toBeGreaterThan(500);
    await run(2, settleTimes);
    const learned = await run(3, settleTimes);
    expect(learned).toBeLessThan(polled / 2);
    expect(learned).toBeLessThanOrEqual(8 * 2);
    expect(await states()).toEqual({ succeeded: 32 });
  });

  it("a new run starts from the ledger: the median settle time of the network's recent purchases", async () => {
    await insertPurchases(test.database.db, [purchase("08031234567")], "test");
    await test.database.db.execute(
      sql`update purchases set state = 'succeeded', network_id = '1', submitted_at = now() - interval '10 seconds',
          settled_at = now() - interval '7 seconds'`,
    );
    const settleTimes = new SettleTimes({ min: 5, max: 60_000 });
    await settleTimes.seed(test.database.db, Date.now());
    expect(settleTimes.firstRead("1")).toBe(3000);
    expect(settleTimes.firstRead("2")).toBe(5);
    const bounded = new SettleTimes({ min: 5, max: 1000 });
    await bounded.seed(test.database.db, Date.now());
    expect(bounded.firstRead("1")).toBe(1000);
    // The learned wait stays below initial_delay + max_interval, and below timeout.
    expect(settleBounds({ initial_delay: 2000, max_interval: 30_000, timeout: 600_000 })).toEqual({
      min: 2000,
      max: 32_000,
    });
    expect(settleBounds({ initial_delay: 2000, max_interval: 30_000, timeout: 10_000 })).toEqual({
      min: 2000,
      max: 10_000,
    });
  });

  it("a purchase one verification of the process follows is left to it by a sweep's run of the same process", async () => {
    sandbox.reset({ verifyLag: "reads", verifyNotFoundPolls: 0, verifyPendingPolls: 1_000_000 });
    reseller = resellerFor(sandbox);
    const config = testConfig(sandbox, {
      verification: { initial_delay: "5ms", timeout: "60s", max_interval: "50ms", horizon: "72h" },
    });
    const observed: number[] = [];
    const verifying = { tally: new VerifyReadTally((reads) => observed.push(reads)) };
    await insertPurchases(
      test.database.db,
      MTN_NUMBERS(3).map((p) => purchase(p)),
      "test",
    );
    let verifyingNow = 0;
    const buying = executePurchases(
      { database: test.database, reseller, config, logger: silentLogger(), verifying },
      { resumeVerification: false, onProgress: (p) => (verifyingNow = p.verifying) },
    );
    await waitFor("three purchases being verified", () => verifyingNow === 3);
    // A sweep finds them due (their next check has passed) while the run still reads them.
    await test.database.db.execute(sql`update purchases set next_verify_at = now() - interval '1 second'`);
    const sweep = await executePurchases(
      { database: test.database, reseller, config, logger: silentLogger(), verifying },
      { resumeVerification: true },
    );
    expect(sweep.verifying).toBe(0);
    expect(sweep.succeeded + sweep.unverified).toBe(0);
    sandbox.setOptions({ verifyPendingPolls: 0 });
    const summary = await buying;
    expect(summary.succeeded).toBe(3);
    expect(observed).toHaveLength(3);
  });

  it("where notifications are received, the notification's read settles the purchase and the run reads none", async () => {
    const port = await freePort();
    sandbox.reset({
      verifyLag: "time",
      verifyNotFoundMs: 50,
      verifyPendingMs: 150,
      notifyUrl: `http://127.0.0.1:${port}/webhooks/reseller`,
    });
    reseller = resellerFor(sandbox);
    const config = testConfig(sandbox, {
      webhooks: { enabled: true, secret: SECRET },
      verification: {
        initial_delay: "5ms",
        timeout: "20s",
        max_interval: "20ms",
        horizon: "72h",
        notification_wait: "15s",
      },
    });
    const logger = silentLogger();
    const observed: number[] = [];
    const tally = new VerifyReadTally((reads) => observed.push(reads));
    // The notifications reach "another replica": its own client and verifier, sharing only the ledger.
    const otherReseller = resellerFor(sandbox);
    const deps = notificationDeps({
      db: test.database.db,
      reseller: otherReseller,
      config,
      logger,
      clock: systemClock,
      tally,
    });
    const processing: Promise<unknown>[] = [];
    const server: HealthServer = await startHealthServer({
      host: "127.0.0.1",
      port,
      readiness: new Readiness(),
      logger,
      metrics: async () => ({ contentType: "text/plain", body: "" }),
      webhook: createWebhookReceiver({
        config: config.webhooks,
        database: () => test.database.db,
        secrets: [SECRET],
        logger,
        onStored: (id) => processing.push(processNotification(deps, id)),
      }),
    });
    try {
      await insertPurchases(
        test.database.db,
        MTN_NUMBERS(10).map((p) => purchase(p)),
        "test",
      );
      const summary = await executePurchases({
        database: test.database,
        reseller,
        config,
        logger,
        verifying: { watch: new SettleWatch(test.database.db, systemClock, 50), tally },
      });
      await Promise.all(processing);
      expect(summary.submitted).toBe(10);
      expect(summary.succeeded).toBe(10);
      expect(await states()).toEqual({ succeeded: 10 });
      // One read per purchase, the notification's; the run's verification waited and saw it settled.
      expect(verifyReads()).toBe(10);
      expect(observed).toEqual(Array(10).fill(1));
    } finally {
      await server.close();
      await otherReseller.close();
    }
  });

  it("without a notification before notification_wait, the run reads the purchase itself", async () => {
    sandbox.reset({ verifyLag: "time", verifyNotFoundMs: 0, verifyPendingMs: 0 });
    reseller = resellerFor(sandbox);
    const config = testConfig(sandbox, {
      verification: {
        initial_delay: "5ms",
        timeout: "20s",
        max_interval: "20ms",
        horizon: "72h",
        notification_wait: "100ms",
      },
    });
    await insertPurchases(
      test.database.db,
      MTN_NUMBERS(3).map((p) => purchase(p)),
      "test",
    );
    const summary = await executePurchases({
      database: test.database,
      reseller,
      config,
      logger: silentLogger(),
      verifying: { watch: new SettleWatch(test.database.db, systemClock, 20) },
    });
    expect(summary.succeeded).toBe(3);
    expect(verifyReads()).toBe(3);
  });

  it("a backlog of verifications does not starve new purchases at the rate limit, and every verification ends final", async () => {
    // Verify answers pending until the test says otherwise (reads-based lag: it changes for transactions bought).
    sandbox.reset({ verifyLag: "reads", verifyNotFoundPolls: 0, verifyPendingPolls: 1_000_000 });
    reseller = resellerFor(sandbox, { rateLimit: 20, burst: 1, concurrency: 4 });
    const config = testConfig(sandbox, {
      reseller: { base_url: sandbox.resellerUrl, api_key: sandbox.apiKey, concurrency: 4, rate_limit: 20 },
      verification: { initial_delay: "5ms", timeout: "60s", max_interval: "20ms", horizon: "72h" },
    });
    // Thirty purchases an earlier run bought and left to verify (it stopped before their final status).
    await insertPurchases(
      test.database.db,
      MTN_NUMBERS(30).map((p) => purchase(p)),
      "test",
    );
    const first = await executePurchases({
      database: test.database,
      reseller: resellerFor(sandbox),
      config: { ...config, verification: { ...config.verification, timeout: 50 } },
      logger: silentLogger(),
    });
    expect(first.submitted).toBe(30);
    await test.database.db.execute(
      sql`update purchases set state = 'submitted', next_verify_at = now(), submitted_at = now()`,
    );
    // Ten new purchases: this run reads the thirty again and again (pending), and must still send the ten.
    await insertPurchases(
      test.database.db,
      MTN_NUMBERS(10, 100).map((p) => purchase(p)),
      "test",
    );
    let submitted = 0;
    const running = executePurchases(
      { database: test.database, reseller, config, logger: silentLogger() },
      { onProgress: (p) => (submitted = p.submitted) },
    );
    await waitFor(
      "the ten new purchases to be sent while thirty verifications read pending",
      () => submitted === 10,
      {
        timeoutMs: 40_000,
        context: () => `${submitted} sent, ${posts()} POSTs, ${verifyReads()} verify reads`,
      },
    );
    // The backlog was being read all along: its reads and the POSTs took turns.
    expect(verifyReads()).toBeGreaterThan(30);
    sandbox.setOptions({ verifyPendingPolls: 0 });
    const summary = await running;
    expect(summary.submitted).toBe(10);
    expect(summary.succeeded).toBe(40);
    expect(summary.unverified).toBe(0);
    expect(await states()).toEqual({ succeeded: 40 });
    expect(sandbox.debits()).toHaveLength(40);
  });
});
