// A provider notification recorded `unmatched` is looked at again when a purchase goes in_doubt since (the daemon's
// notification passes, on every replica). Passes overlap — two replicas, or one pass slow on its verify read — and
// the ledger moves meanwhile: one notification is processed by one processor at a time, an `unmatched` record never
// follows a settlement of the purchase it names, and /metrics counts each notification once per outcome it reaches.
// The verify read of one replica is held in a proxy while the rest happens: no sleeps, no timing.
import { createHmac } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { type Clock, systemClock } from "../../src/clock.js";
import { rows } from "../../src/db/client.js";
import { silentLogger } from "../../src/log/logger.js";
import { writeUnmatchedNotices } from "../../src/notify/unmatched.js";
import { resolveAsPerson } from "../../src/purchases/by-person.js";
import { insertPurchases, type PurchaseRow } from "../../src/purchases/ledger.js";
import { NotificationBacklog } from "../../src/purchases/notification-backlog.js";
import { notificationDeps } from "../../src/purchases/notifications.js";
import { SettleWatch } from "../../src/purchases/settle-watch.js";
import type { ResellerClient } from "../../src/reseller/client.js";
import { NotificationPasses } from "../../src/schedule/notification-passes.js";
import { type HealthServer, startHealthServer } from "../../src/server/health.js";
import { DaemonMetrics } from "../../src/server/metrics.js";
import { Readiness } from "../../src/server/readiness.js";
import { createWebhookReceiver } from "../../src/server/webhook.js";
import { freePort } from "../daemon/helpers.js";
import { resellerFor } from "../helpers/clients.js";
import { testConfig } from "../helpers/config.js";
import { type ResellerProxy, resellerProxy, verifiedReference } from "../helpers/reseller-proxy.js";
import { sandboxLedger } from "../helpers/sandbox-ledger.js";
import { waitFor } from "../helpers/wait.js";

const SECRET = "sandbox-webhook-secret";
const PATH = "/webhooks/reseller";
const sign = (body: string) => createHmac("sha256", SECRET).update(body).digest("hex");

/** The clock of a replica's notification passes: each pass ends in a sleep that lasts until the passes stop. */
function passClock(): Clock & { ended(count: number): Promise<void> } {
  let ended = 0;
  const waiting: Array<{ count: number; resolve: () => void }> = [];
  return {
    now: () => Date.now(),
    sleep: (_ms, signal) => {
      ended++;
      for (const w of waiting.filter((w) => w.count <= ended)) w.resolve();
      return new Promise<void>((resolve) => {
        if (signal?.aborted) resolve();
        signal?.addEventListener("abort", () => resolve(), { once: true });
      });
    },
    ended: (count) =>
      count <= ended ? Promise.resolve() : new Promise((resolve) => waiting.push({ count, resolve })),
  };
}

interface Replica {
  metrics: DaemonMetrics;
  backlog: NotificationBacklog;
  passes: NotificationPasses;
  clock: ReturnType<typeof passClock>;
}

describe("retries of an unmatched provider notification, on postgres", () => {
  const env = sandboxLedger(7);
  let closing: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closing.reverse()) await close();
    closing = [];
  });

  const config = () => testConfig(env.sandbox, { webhooks: { enabled: true, secret: SECRET } });

  /** A replica's notification processing, as the daemon wires it: its verify reads go to `through`. */
  function replica(through: ResellerClient): Replica {
    const logger = silentLogger();
    const deps = notificationDeps({
      db: env.test.database.db,
      reseller: through,
      config: config(),
      logger,
      clock: systemClock,
    });
    const metrics = new DaemonMetrics(config());
    const backlog = new NotificationBacklog(deps, (result) => metrics.notification(result.outcome));
    const clock = passClock();
    const passes = new NotificationPasses({ backlog, logger, clock });
    closing.push(() => passes.stop());
    return { metrics, backlog, passes, clock };
  }

  /** A reseller whose verify reads wait until `release` (`held` resolves when the first one arrives). */
  async function heldVerify(): Promise<{ client: ResellerClient; held: Promise<void>; release: () => void }> {
    let arrived!: () => void;
    const held = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const proxy: ResellerProxy = await resellerProxy(
      env.sandbox.resellerUrl,
      () => undefined,
      async ({ path }) => {
        if (verifiedReference(path) === undefined) return;
        arrived();
        await released;
      },
    );
    const client = resellerFor(
      { resellerUrl: proxy.url, apiKey: env.sandbox.apiKey },
      { timeout: { connect: 1000, headers: 60_000, body: 60_000 } },
    );
    closing.push(async () => {
      release();
      await client.close();
      await proxy.close();
    });
    return { client, held, release };
  }

  /** The receiver on a daemon's HTTP server, handing what it stores to `to` as the daemon does. */
  async function receiver(to: Replica): Promise<{ url: string; processed: () => Promise<void> }> {
    const processing: Promise<unknown>[] = [];
    const port = await freePort();
    const server: HealthServer = await startHealthServer({
      host: "127.0.0.1",
      port,
      readiness: new Readiness(),
      logger: silentLogger(),
      metrics: async () => ({ contentType: "text/plain", body: "" }),
      webhook: createWebhookReceiver({
        config: config().webhooks,
        database: () => env.test.database.db,
        secrets: [SECRET],
        logger: silentLogger(),
        onStored: (id) => processing.push(to.backlog.process(id)),
      }),
    });
    closing.push(() => server.close());
    return {
      url: `${server.url}${PATH}`,
      processed: async () => {
        await new Promise((resolve) => setImmediate(resolve));
        await Promise.all(processing);
      },
    };
  }

  async function purchaseOf(phone: string): Promise<PurchaseRow> {
    const [row] = await rows<PurchaseRow>(
      env.test.database.db,
      sql`select * from purchases where phone = ${phone}`,
    );
    return row!;
  }

  const notification = async () => {
    const [row] = await rows<{ outcome: string; reason: string; purchase_id: number | null }>(
      env.test.database.db,
      sql`select outcome, reason, purchase_id::int as purchase_id from provider_notifications`,
    );
    return row!;
  };

  /** Every replica's topsync_notifications_total, by outcome. */
  async function counted(...replicas: Replica[]): Promise<Record<string, number>> {
    const totals: Record<string, number> = {};
    for (const r of replicas) {
      const metric = await r.metrics.registry.getSingleMetric("topsync_notifications_total")!.get();
      for (const value of metric.values) {
        const outcome = String(value.labels.outcome);
        totals[outcome] = (totals[outcome] ?? 0) + value.value;
      }
    }
    return totals;
  }

  const buyWith = async (phone: string, fault: Record<string, number>) => {
    env.sandbox.setFaults({ endpoints: { data: fault } });
    await insertPurchases(
      env.test.database.db,
      [{ request_key: `hook:${phone}`, source: "buy", network: "MTN", plan_id: "102", phone, ported: false }],
      "test",
    );
    return env.run();
  };

  /**
   * Purchase 08031240001 is debited and its answer never comes; the provider's notification arrives meanwhile, while
   * the purchase is still submitting, and is recorded unmatched by replica `a`. Then the purchase is in_doubt.
   */
  async function notifiedBeforeInDoubt(a: Replica): Promise<PurchaseRow> {
    const hook = await receiver(a);
    env.sandbox.setOptions({ notifyUrl: hook.url, notifyHold: true });
    const running = buyWith("08031240001", { rateHangAfter: 1 });
    await waitFor("the debit", () => env.sandbox.debits().length === 1);
    await env.sandbox.deliverNotifications();
    await hook.processed();
    expect(await notification()).toMatchObject({ outcome: "unmatched", purchase_id: null });
    await running;
    env.sandbox.setFaults({ endpoints: {} });
    env.sandbox.setOptions({ notifyUrl: "" });
    const lost = await purchaseOf("08031240001");
    expect(lost.state).toBe("in_doubt");
    return lost;
  }

  it("two replicas retrying it at once: processed by one, settled once, counted once per outcome", {
    timeout: 60_000,
  }, async () => {
    const slow = await heldVerify();
    const a = replica(slow.client);
    const b = replica(env.reseller);
    const lost = await notifiedBeforeInDoubt(a);
    // Replica a retries it (the purchase went in_doubt since) and waits on its verify read.
    a.passes.start();
    await slow.held;
    // Meanwhile another purchase goes in_doubt, and replica b's pass retries what is unmatched.
    await buyWith("08031240002", { rate500After: 1 });
    expect((await purchaseOf("08031240002")).state).toBe("in_doubt");
    b.passes.start();
    await b.clock.ended(1);
    slow.release();
    await a.clock.ended(1);
    const reference = env.sandbox.debits()[0]!.reference;
    expect(await purchaseOf("08031240001")).toMatchObject({ state: "succeeded", reference });
    expect(await notification()).toMatchObject({ outcome: "settled", purchase_id: Number(lost.id) });
    expect(await counted(a, b)).toEqual({ unmatched: 1, settled: 1 });
  });

  it("a purchase a person settles while a retry reads verify: the notification is that purchase's, not unmatched", {
    timeout: 60_000,
  }, async () => {
    const slow = await heldVerify();
    const a = replica(slow.client);
    const lost = await notifiedBeforeInDoubt(a);
    a.passes.start();
    await slow.held;
    const reference = env.sandbox.debits()[0]!.reference;
    const resolved = await resolveAsPerson(env.test.database.db, lost, "succeeded", reference, {
      actor: "ada",
      reason: "the provider's dashboard shows it",
    });
    expect(resolved.ok).toBe(true);
    slow.release();
    await a.clock.ended(1);
    expect(await purchaseOf("08031240001")).toMatchObject({ state: "succeeded", reference });
    const after = await notification();
    expect(after).toMatchObject({ outcome: "matched", purchase_id: Number(lost.id) });
    expect(await counted(a)).toEqual({ unmatched: 1, matched: 1 });
  });

  it("a retry that finds nothing new leaves it unmatched and does not count it again", {
    timeout: 60_000,
  }, async () => {
    const a = replica(env.reseller);
    const hook = await receiver(a);
    const body = JSON.stringify({
      status: "successful",
      data: {
        reference: "NOBODY1",
        phone_number: "08039990001",
        amount: "305.00",
        plan: "1GB",
        date: new Date().toISOString(),
      },
    });
    const answer = await fetch(hook.url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-signature": sign(body) },
      body,
    });
    expect(answer.status).toBe(200);
    await hook.processed();
    expect(await notification()).toMatchObject({ outcome: "unmatched" });
    // A purchase of another phone goes in_doubt: the pass looks at the notification again, and it is still unmatched.
    await buyWith("08031240003", { rate500After: 1 });
    a.passes.start();
    await a.clock.ended(1);
    expect(await notification()).toMatchObject({ outcome: "unmatched" });
    expect(await counted(a)).toEqual({ unmatched: 1 });
  });

  it("the notification_unmatched scan waits for a notification still being processed, however long ago it came", async () => {
    // 1 came an hour ago and is being processed now (claimed, a retry's or a slow verify's); 2 was found unmatched.
    await rows(
      env.test.database.db,
      sql`insert into provider_notifications (id, body_sha256, reference, status, phone, amount, body, outcome, reason, processed_at, received_at)
          values (1, 'a', 'REF-BUSY-1', 'success', '08031112222', 305, '{}', 'received', null, now(), now() - interval '1 hour'),
                 (2, 'b', 'REF-LATER-2', 'success', '08031113333', 305, '{}', 'unmatched', 'no purchase carries this reference', now(), now() - interval '1 hour')`,
    );
    await writeUnmatchedNotices(env.test.database.db, 60_000);
    // Its processor then records it unmatched: it is told of all the same.
    await rows(
      env.test.database.db,
      sql`update provider_notifications set outcome = 'unmatched' where id = 1`,
    );
    await writeUnmatchedNotices(env.test.database.db, 60_000);
    const told = await rows<{ subject: string }>(
      env.test.database.db,
      sql`select subject from notification_outbox where trigger = 'notification_unmatched' order by subject`,
    );
    expect(told.map((t) => t.subject)).toEqual(["notification:1", "notification:2"]);
  });

  it("a purchase waiting for its notification is read at once when one was recorded matched to it", async () => {
    // The notification came while the purchase's own answer was being recorded: it found the purchase only as it
    // recorded its outcome (matched), and the purchase, still submitted, waits for a notification.
    const [purchase] = await rows<{ id: number }>(
      env.test.database.db,
      sql`insert into purchases (request_key, source, network, phone, state, reference, amount, submitted_at)
          values ('buy:w1', 'buy', 'MTN', '08031112222', 'submitted', 'REF-W1', 305, now()) returning id::int as id`,
    );
    await rows(
      env.test.database.db,
      sql`insert into provider_notifications (body_sha256, reference, status, phone, amount, body, outcome, reason, purchase_id, processed_at)
          values ('w', 'REF-W1', 'success', '08031112222', 305, '{}', 'matched',
            'purchase 1 carries reference REF-W1 now: it took it while this notification was being processed', ${purchase!.id}, now())`,
    );
    const watch = new SettleWatch(env.test.database.db, systemClock, 10);
    // The deadline only bounds the wait if the notification is not seen.
    expect(await watch.wait(purchase!.id, "REF-W1", Date.now() + 10_000)).toEqual({ kind: "notified" });
  });
});
