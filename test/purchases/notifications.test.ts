// Provider notifications over real HTTP: the receiver on the daemon's HTTP server refuses what it
// cannot authenticate and changes nothing; an accepted delivery is stored once; a notification settles an
// in_doubt purchase only when the verify answer of its reference proves it is that purchase.
import { createHmac } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import { rows } from "../../src/db/client.js";
import { silentLogger } from "../../src/log/logger.js";
import { requeueAsPerson } from "../../src/purchases/by-person.js";
import { executePurchases } from "../../src/purchases/executor.js";
import { insertPurchases, type NewPurchase } from "../../src/purchases/ledger.js";
import { findPurchase } from "../../src/purchases/ledger-read.js";
import {
  type NotificationResult,
  notificationDeps,
  processNotification,
  retryUnmatched,
} from "../../src/purchases/notifications.js";
import { makeLedgerReport } from "../../src/report/ledger.js";
import type { ResellerClient } from "../../src/reseller/client.js";
import { type HealthServer, startHealthServer } from "../../src/server/health.js";
import { readLedgerStats } from "../../src/server/ledger-stats.js";
import { Readiness } from "../../src/server/readiness.js";
import { createWebhookReceiver } from "../../src/server/webhook.js";
import { freePort } from "../daemon/helpers.js";
import { runCli } from "../helpers/cli.js";
import { resellerFor } from "../helpers/clients.js";
import { testConfig, writeConfigFile } from "../helpers/config.js";
import { resellerProxy, verifiedReference } from "../helpers/reseller-proxy.js";
import { sandboxLedger } from "../helpers/sandbox-ledger.js";
import { waitFor as waitUntil } from "../helpers/wait.js";

const SECRET = "sandbox-webhook-secret";
const PATH = "/webhooks/reseller";

const purchase = (phone: string, key = phone): NewPurchase => ({
  request_key: `hook:${key}`,
  source: "buy",
  network: "MTN",
  plan_id: "102", // listed at 305.00
  phone,
  ported: false,
});

const sign = (body: string, secret = SECRET, prefix = "") =>
  createHmac("sha256", secret).update(`${prefix}${body}`).digest("hex");

interface Receiver {
  url: string;
  server: HealthServer;
  results: Promise<NotificationResult | undefined>[];
  rejected: string[];
  /** Waits for the processing of every delivery accepted so far. */
  settled(): Promise<(NotificationResult | undefined)[]>;
}

describe("provider notifications, on postgres", () => {
  const env = sandboxLedger(5);
  let receiver: Receiver | undefined;
  afterEach(async () => {
    await receiver?.server.close();
    receiver = undefined;
  });

  async function startReceiver(
    webhooks: Record<string, unknown> = {},
    /** The reseller the receiver's verify reads go to (the sandbox's, unless a test puts another in front). */
    verifyThrough: ResellerClient = env.reseller,
  ): Promise<Receiver> {
    const config = testConfig(env.sandbox, { webhooks: { enabled: true, secret: SECRET, ...webhooks } });
    const logger = silentLogger();
    const deps = notificationDeps({
      db: env.test.database.db,
      reseller: verifyThrough,
      config,
      logger,
      clock: systemClock,
    });
    const results: Promise<NotificationResult | undefined>[] = [];
    const rejected: string[] = [];
    const port = await freePort();
    const server = await startHealthServer({
      host: "127.0.0.1",
      port,
      readiness: new Readiness(),
      logger,
      metrics: async () => ({ contentType: "text/plain", body: "" }),
      webhook: createWebhookReceiver({
        config: config.webhooks,
        database: () => env.test.database.db,
        secrets: [SECRET],
        logger,
        onStored: (id) => results.push(processNotification(deps, id)),
        onRejected: (why) => rejected.push(why),
      }),
    });
    receiver = {
      url: `${server.url}${PATH}`,
      server,
      results,
      rejected,
      settled: async () => {
        // A delivery's processing starts when its answer has been sent; wait until each one has started.
        await new Promise((resolve) => setImmediate(resolve));
        return Promise.all(results);
      },
    };
    return receiver;
  }

  const post = async (url: string, body: string, headers: Record<string, string> = {}) => {
    const answer = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
    });
    return { status: answer.status, body: await answer.text() };
  };

  const notifications = () =>
    rows<{
      id: number;
      reference: string;
      outcome: string;
      reason: string | null;
      purchase_id: number | null;
    }>(
      env.test.database.db,
      sql`select id::int as id, reference, outcome, reason, purchase_id::int as purchase_id from provider_notifications order by id`,
    );
  const ledger = () =>
    rows<{ id: number; phone: string; state: string; reference: string | null }>(
      env.test.database.db,
      sql`select id::int as id, phone, state, reference from purchases order by id`,
    );

  /** Buys the phones with every purchase answer lost after the debit (a 500): each ends in_doubt. */
  async function buyLosingAnswers(phones: string[]) {
    await insertPurchases(
      env.test.database.db,
      phones.map((p, i) => purchase(p, `${p}:${i}`)),
      "test",
    );
    await env.runLosingAnswers();
    expect((await ledger()).map((r) => r.state)).toEqual(phones.map(() => "in_doubt"));
  }

  function notificationFor(
    debit: { reference: string; phone_number: string; amount: string; at: string },
    status = "successful",
  ) {
    return JSON.stringify({
      success: status === "successful",
      code: status === "successful" ? 200 : 400,
      status,
      message: `Reference: ${debit.reference}`,
      data: {
        service: "MTN Data",
        amount: debit.amount,
        plan: "1GB",
        phone_number: debit.phone_number,
        date: debit.at,
        reference: debit.reference,
        network: "MTN",
      },
    });
  }

  it("refuses a forged signature, a stale timestamp, a wrong token, a malformed or oversized body: nothing stored", async () => {
    const hmac = await startReceiver({ timestamp_header: "X-Timestamp", tolerance: "5m" });
    const body = JSON.stringify({
      status: "successful",
      data: { reference: "R1", phone_number: "08031234567" },
    });
    const now = Math.floor(Date.now() / 1000);
    const fresh = { "x-timestamp": String(now) };
    const forged = await post(hmac.url, body, {
      ...fresh,
      "x-signature": sign(body, "another-secret", `${now}.`),
    });
    expect(forged.status).toBe(401);
    const unsigned = await post(hmac.url, body, fresh);
    expect(unsigned.status).toBe(401);
    const stale = now - 3600;
    const old = await post(hmac.url, body, {
      "x-timestamp": String(stale),
      "x-signature": sign(body, SECRET, `${stale}.`),
    });
    expect(old.status).toBe(401);
    expect(old.body).toMatch(/tolerance/);
    // The body changed after signing: the signature no longer matches.
    const tampered = await post(hmac.url, body.replace("R1", "R2"), {
      ...fresh,
      "x-signature": sign(body, SECRET, `${now}.`),
    });
    expect(tampered.status).toBe(401);
    const notJson = "{not json";
    expect(
      (await post(hmac.url, notJson, { ...fresh, "x-signature": sign(notJson, SECRET, `${now}.`) })).status,
    ).toBe(400);
    const noReference = JSON.stringify({ status: "successful", data: {} });
    expect(
      (await post(hmac.url, noReference, { ...fresh, "x-signature": sign(noReference, SECRET, `${now}.`) }))
        .status,
    ).toBe(400);
    const huge = JSON.stringify({ data: { reference: "R3", padding: "x".repeat(70 * 1024) } });
    expect(
      (await post(hmac.url, huge, { ...fresh, "x-signature": sign(huge, SECRET, `${now}.`) })).status,
    ).toBe(413);
    expect(hmac.rejected.length).toBe(7);
    // The signed, fresh delivery is the only one accepted.
    const good = await post(hmac.url, body, { ...fresh, "x-signature": sign(body, SECRET, `${now}.`) });
    expect(good.status).toBe(200);
    await hmac.settled();
    expect((await notifications()).map((n) => n.reference)).toEqual(["R1"]);
    await hmac.server.close();

    const sha512 = await startReceiver({
      algorithm: "sha512",
      encoding: "base64",
      signature_header: "X-Hub-Signature",
    });
    const b64 = createHmac("sha512", SECRET).update(body).digest("base64");
    expect((await post(sha512.url, body, { "x-hub-signature": sign(body) })).status).toBe(401); // sha256 hex
    expect((await post(sha512.url, body.replace("R1", "R5"), { "x-hub-signature": b64 })).status).toBe(401);
    expect((await post(sha512.url, body, { "x-hub-signature": b64 })).status).toBe(200); // a replay of R1's body
    await sha512.server.close();

    const header = await startReceiver({ auth: "token" });
    expect((await post(header.url, body, { "x-webhook-token": "nope" })).status).toBe(401);
    expect((await post(header.url, body.replace("R1", "R6"), { "x-webhook-token": SECRET })).status).toBe(
      200,
    );
    await header.settled();
    await header.server.close();

    const token = await startReceiver({ auth: "token", token_in: "path" });
    expect((await post(token.url, body)).status).toBe(401);
    expect((await post(`${token.url}/wrong-token`, body)).status).toBe(401);
    expect((await post(`${token.url}/${SECRET}`, body.replace("R1", "R4"))).status).toBe(200);
    await token.settled();
    expect((await notifications()).map((n) => n.reference)).toEqual(["R1", "R6", "R4"]);
  });

  it("config: enabled webhooks need a secret; allow_from takes addresses and ranges only", () => {
    expect(() => testConfig(env.sandbox, { webhooks: { enabled: true } })).toThrow(/webhooks\.secret/);
    expect(() =>
      testConfig(env.sandbox, { webhooks: { enabled: true, secret: SECRET, allow_from: ["example.com"] } }),
    ).toThrow(/webhooks\.allow_from/);
    expect(testConfig(env.sandbox).webhooks.enabled).toBe(false);
  });

  it("an address outside allow_from is refused", async () => {
    const hook = await startReceiver({ allow_from: ["10.0.0.0/8"] });
    const body = JSON.stringify({ data: { reference: "R9" } });
    const answer = await post(hook.url, body, { "x-signature": sign(body) });
    expect(answer.status).toBe(403);
    expect(await notifications()).toEqual([]);
  });

  it("a replayed delivery is stored and processed once; an unknown reference changes nothing", async () => {
    const hook = await startReceiver();
    await insertPurchases(env.test.database.db, [purchase("08031230001")], "test");
    const before = await ledger();
    const body = notificationFor({
      reference: "NEVERISSUED000000001",
      phone_number: "08031230001",
      amount: "305.00",
      at: new Date().toISOString(),
    });
    const first = await post(hook.url, body, { "x-signature": sign(body) });
    const replay = await post(hook.url, body, { "x-signature": sign(body) });
    expect(first.status).toBe(200);
    expect(replay.status).toBe(200);
    expect(JSON.parse(replay.body)).toMatchObject({ duplicate: true, id: JSON.parse(first.body).id });
    const results = await hook.settled();
    expect(results).toHaveLength(1);
    const [stored] = await notifications();
    expect(stored).toMatchObject({ outcome: "unmatched", purchase_id: null });
    expect(stored!.reason).toMatch(/no in_doubt purchase could be it/);
    expect(await ledger()).toEqual(before);
  });

  it("a NUL or half a surrogate pair in a notification's fields: stored as U+FFFD, unmatched, nothing changed", async () => {
    // Before, the receiver answered 500 to every delivery of it (PostgreSQL cannot hold the text), so the provider
    // sent it again and again and it was never stored.
    const hook = await startReceiver();
    await insertPurchases(env.test.database.db, [purchase("08031230001")], "test");
    const before = await ledger();
    const body = notificationFor({
      reference: "REF\u0000NUL",
      phone_number: "0803123\ud8000001",
      amount: "305.00",
      at: new Date().toISOString(),
    });
    expect(body).toContain("\\u0000");
    const answer = await post(hook.url, body, { "x-signature": sign(body) });
    expect(answer.status).toBe(200);
    await hook.settled();
    const [stored] = await notifications();
    expect(stored).toMatchObject({ outcome: "unmatched", purchase_id: null, reference: "REF\uFFFDNUL" });
    expect(await ledger()).toEqual(before);
  });

  it("a lost purchase answer, then the sandbox's signed notification (twice): succeeded with its reference, one debit", async () => {
    const hook = await startReceiver();
    env.sandbox.setOptions({ notifyUrl: hook.url, notifyHold: true, notifyDuplicates: 1 });
    await buyLosingAnswers(["08031230002"]);
    const [debit] = env.sandbox.debits();
    expect(debit).toBeDefined();
    await env.sandbox.deliverNotifications();
    await hook.settled();
    const [row] = await ledger();
    expect(row).toMatchObject({ state: "succeeded", reference: debit!.reference });
    expect(env.sandbox.debits()).toHaveLength(1);
    const stored = await notifications();
    expect(stored).toHaveLength(1); // the duplicate delivery was recognised
    expect(stored[0]).toMatchObject({ outcome: "settled", purchase_id: row!.id });
    const [event] = await rows<{ actor: string; from_state: string; reason: string; response: unknown }>(
      env.test.database.db,
      sql`select actor, from_state, reason, response from purchase_events
          where purchase_id = ${row!.id} and to_state = 'succeeded'`,
    );
    expect(event).toMatchObject({ actor: "webhook+verify", from_state: "in_doubt" });
    expect(event!.reason).toContain(`provider notification ${stored[0]!.id}`);
    expect(JSON.stringify(event!.response)).toContain(debit!.reference);

    // `purchases show` lists the notification beside the history.
    const file = writeConfigFile(env.sandbox, env.test.url).file;
    const shown = await runCli(["-c", file, "--json", "purchases", "show", String(row!.id)]);
    expect(shown.stderr).toBe("");
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout).notifications).toMatchObject([
      { id: stored[0]!.id, reference: debit!.reference, status: "successful", outcome: "settled" },
    ]);
    // It names why the match was unique: a verify answer proves the transaction, not which purchase made it.
    expect(JSON.parse(shown.stdout).proof).toMatchObject({ actor: "webhook+verify" });
    expect(JSON.parse(shown.stdout).proof.reason).toContain(
      `purchase ${row!.id} is the only purchase that could own it: the same phone and amount`,
    );
    const text = await runCli(["-c", file, "purchases", "show", String(row!.id)]);
    expect(text.stdout).toMatch(/provider notifications:\n[^\n]*OUTCOME[^\n]*\n[^\n]*settled/);
    expect(text.stdout).toMatch(/\nproof {8}settled by proof: provider notification \d+ named reference /);
  });

  /** Buys one purchase that settles succeeded by its own answer and verify; returns it and its debit. */
  async function buySucceeded(phone: string) {
    await insertPurchases(env.test.database.db, [purchase(phone)], "test");
    await env.run();
    const [row] = await ledger();
    const [debit] = env.sandbox.debits();
    expect(row).toMatchObject({ state: "succeeded", reference: debit!.reference });
    return { row: row!, debit: debit! };
  }

  /** A purchase's state and note, its events from `state` (the flag's), and the outbox rows of `trigger`. */
  const flagOf = async (id: number, trigger = "reversed", state = "succeeded") => {
    const [row] = await rows<{ state: string; note: string | null }>(
      env.test.database.db,
      sql`select state, note from purchases where id = ${id}`,
    );
    const events = await rows<{ actor: string; from_state: string; to_state: string; reason: string }>(
      env.test.database.db,
      sql`select actor, from_state, to_state, reason from purchase_events
          where purchase_id = ${id} and from_state = ${state} order by id`,
    );
    const told = await rows<{ trigger: string; kind: string; facts: { state: string; note: string } }>(
      env.test.database.db,
      sql`select trigger, kind, facts from notification_outbox where trigger = ${trigger}`,
    );
    return { ...row!, events, told };
  };

  /** Processes stored notification `id` again (a retry, another replica). */
  const processAgain = (id: number) =>
    processNotification(
      notificationDeps({
        db: env.test.database.db,
        reseller: env.reseller,
        config: testConfig(env.sandbox),
        logger: silentLogger(),
        clock: systemClock,
      }),
      id,
    );

  /** The next notifications held until delivered (each sent twice), and verify lagging them by two reads. */
  const lagBehindNotifications = (url: string) =>
    env.sandbox.setOptions({
      notifyUrl: url,
      notifyHold: true,
      notifyDuplicates: 1,
      notifiedPendingPolls: 2,
    });
  it("a succeeded purchase the provider reverses later: its notification, confirmed once verify catches up, flags it reversed and tells it once", async () => {
    const { row, debit } = await buySucceeded("08031230011");
    const hook = await startReceiver();
    // Verify lags the reversal's notification: it still says success for two reads after it.
    lagBehindNotifications(hook.url);
    const walletBefore = Number(env.sandbox.wallet());
    env.sandbox.reverse(debit.reference);
    expect(Number(env.sandbox.wallet())).toBe(walletBefore + Number(debit.amount)); // refunded
    await env.sandbox.deliverNotifications();
    const [result] = await hook.settled();
    expect(result).toMatchObject({ outcome: "matched", purchaseId: row.id });
    expect(result!.reason).toContain("its verify now says reversed: flagged reversed, for a person");
    const reads = env.sandbox
      .requests()
      .filter((r) => r.method === "GET" && r.path.includes(encodeURIComponent(debit.reference)));
    expect(reads.length).toBeGreaterThanOrEqual(4); // its own verify, two lagging successes, then reversed

    const flagged = await flagOf(row.id);
    expect(flagged.state).toBe("succeeded"); // final: a person decides
    expect(flagged.note).toMatch(
      new RegExp(
        `^reversed: the provider's verify of ${debit.reference} now says reversed \\(its notification said failed\\)`,
      ),
    );
    expect(flagged.events).toEqual([
      expect.objectContaining({ actor: "webhook+verify", to_state: "succeeded", reason: flagged.note }),
    ]);
    expect(flagged.told).toEqual([
      { trigger: "reversed", kind: "open", facts: expect.objectContaining({ state: "succeeded" }) },
    ]);
    expect(flagged.told[0]!.facts.note).toMatch(/^reversed: /);
    const stats = await readLedgerStats(env.test.database.db, new Date(), "UTC");
    expect(stats.noted.reversed).toBe(1);
    // The report lists it under "Needs a person", to be looked at (it stays succeeded: nothing to resolve).
    const report = await makeLedgerReport(env.test.database.db, {
      now: new Date(),
      since: new Date(Date.now() - 86_400_000),
      timeZone: "Africa/Lagos",
    });
    expect(report.open).toEqual([
      expect.objectContaining({
        id: row.id,
        state: "succeeded",
        note: flagged.note,
        settle: `topsync purchases show ${row.id}`,
      }),
    ]);

    // The same notification processed again (a retry, another replica) flags nothing twice.
    const [stored] = await notifications();
    await processAgain(stored!.id);
    const again = await flagOf(row.id);
    expect(again.events).toHaveLength(1);
    expect(again.told).toHaveLength(1);
  });

  it("a signed notification that a succeeded purchase was reversed, which its verify never confirms: nothing changes, the reason says why", async () => {
    const { row, debit } = await buySucceeded("08031230012");
    const hook = await startReceiver();
    const body = notificationFor(debit, "reversed");
    expect((await post(hook.url, body, { "x-signature": sign(body) })).status).toBe(200);
    const [result] = await hook.settled();
    expect(result).toMatchObject({ outcome: "matched", purchaseId: row.id });
    expect(result!.reason).toBe(
      `the notification says ${debit.reference} reversed after purchase ${row.id} succeeded, but its verify still says success after verification.timeout: nothing changed`,
    );
    const unchanged = await flagOf(row.id);
    expect(unchanged).toMatchObject({ state: "succeeded", note: null, events: [], told: [] });
  });

  /** Buys one purchase the provider fails (its verify says failed: refunded); returns it and its debit. */
  async function buyFailed(phone: string) {
    env.sandbox.setOptions({ failRate: 1 });
    await insertPurchases(env.test.database.db, [purchase(phone)], "test");
    await env.run();
    env.sandbox.setOptions({ failRate: 0 });
    const [row] = await ledger();
    const [debit] = env.sandbox.debits();
    expect(row).toMatchObject({ state: "failed", reference: debit!.reference });
    return { row: row!, debit: debit! };
  }

  const committed = async () =>
    (
      await rows<{ committed: string }>(
        env.test.database.db,
        sql`select coalesce(sum(committed), 0)::text as committed from budget_days`,
      )
    )[0]!.committed;

  it("a failed purchase the provider delivers later: its notification, confirmed once verify catches up, flags it delivered_after_failure, tells it once and counts its charge against the daily budget", async () => {
    const { row, debit } = await buyFailed("08031230013");
    expect(await committed()).toBe("0.00"); // failed: refunded, nothing counted
    const hook = await startReceiver();
    // Verify lags the delivery's notification: it still says failed for two reads after it.
    lagBehindNotifications(hook.url);
    const walletBefore = Number(env.sandbox.wallet());
    env.sandbox.deliverLate(debit.reference);
    expect(Number(env.sandbox.wallet())).toBe(walletBefore - Number(debit.amount)); // charged again
    await env.sandbox.deliverNotifications();
    const [result] = await hook.settled();
    expect(result).toMatchObject({ outcome: "matched", purchaseId: row.id });
    expect(result!.reason).toBe(
      `the notification says ${debit.reference} successful after purchase ${row.id} failed, and its verify now says success: flagged delivered_after_failure, for a person`,
    );
    const reads = env.sandbox
      .requests()
      .filter((r) => r.method === "GET" && r.path.includes(encodeURIComponent(debit.reference)));
    expect(reads.length).toBeGreaterThanOrEqual(4); // its own verify, two lagging failures, then success

    const flagged = await flagOf(row.id, "delivered_after_failure", "failed");
    expect(flagged.state).toBe("failed"); // final: a person decides
    expect(flagged.note).toMatch(
      new RegExp(
        `^delivered_after_failure: the provider's verify of ${debit.reference} now says success \\(its notification said successful\\), after the purchase failed: the provider charged for it`,
      ),
    );
    expect(flagged.events).toEqual([
      expect.objectContaining({ actor: "webhook+verify", to_state: "failed", reason: flagged.note }),
    ]);
    expect(flagged.told).toEqual([
      {
        trigger: "delivered_after_failure",
        kind: "open",
        facts: expect.objectContaining({ state: "failed", amount: "305.00", reference: debit.reference }),
      },
    ]);
    expect(flagged.told[0]!.facts.note).toMatch(/^delivered_after_failure: /);
    const stats = await readLedgerStats(env.test.database.db, new Date(), "Africa/Lagos");
    expect(stats.noted.delivered_after_failure).toBe(1);
    // The provider took the money: the day's budget counts it, as /metrics' spend today does.
    expect(await committed()).toBe("305.00");
    expect(stats.spentToday).toBe("305.00");
    const report = await makeLedgerReport(env.test.database.db, {
      now: new Date(),
      since: new Date(Date.now() - 86_400_000),
      timeZone: "Africa/Lagos",
    });
    expect(report.open).toEqual([
      expect.objectContaining({ id: row.id, state: "failed", note: flagged.note }),
    ]);

    // The same notification processed again (a retry, another replica) flags and counts nothing twice.
    const [stored] = await notifications();
    await processAgain(stored!.id);
    const again = await flagOf(row.id, "delivered_after_failure", "failed");
    expect(again.events).toHaveLength(1);
    expect(again.told).toHaveLength(1);
    expect(await committed()).toBe("305.00");

    // The cap counts the charge: with 305.00 spent of a 500.00 day, the next 305.00 purchase is refused.
    env.sandbox.setOptions({ notifyUrl: "" });
    await insertPurchases(env.test.database.db, [purchase("08031230014")], "test");
    await env.run({ settings: { budget: { daily_limit: "500" } } });
    const [next] = await rows<{ state: string; reason: string }>(
      env.test.database.db,
      sql`select state, reason from purchases where id <> ${row.id}`,
    );
    expect(next).toEqual({
      state: "rejected",
      reason: expect.stringMatching(
        /^daily_budget: daily budget: 305(\.00)? committed today \+ 305(\.00)? > /,
      ),
    });
    expect(env.sandbox.debits()).toHaveLength(2); // the first purchase's, and its charge after the refund
  });

  it("a signed notification that a failed purchase succeeded, which its verify never confirms, or confirms of another transaction: nothing changes, the reason says why", async () => {
    const { row, debit } = await buyFailed("08031230015");
    const hook = await startReceiver();
    const body = notificationFor(debit);
    expect((await post(hook.url, body, { "x-signature": sign(body) })).status).toBe(200);
    const [result] = await hook.settled();
    expect(result).toMatchObject({ outcome: "matched", purchaseId: row.id });
    expect(result!.reason).toBe(
      `the notification says ${debit.reference} successful after purchase ${row.id} failed, but its verify still says failed after verification.timeout: nothing changed`,
    );

    // Delivered, but the verify answer names another transaction: a success that is not this purchase's proves nothing.
    env.sandbox.deliverLate(debit.reference);
    env.sandbox.setOptions({ verifyLie: "reference" });
    const again = JSON.stringify({ ...JSON.parse(body), message: "delivered" });
    expect((await post(hook.url, again, { "x-signature": sign(again) })).status).toBe(200);
    const [, lied] = await hook.settled();
    expect(lied!.reason).toBe(
      `the notification says ${debit.reference} successful after purchase ${row.id} failed, but its verify answer disagrees with the purchase: it names reference ${debit.reference}X, not ${debit.reference}: nothing changed`,
    );
    const unchanged = await flagOf(row.id, "delivered_after_failure", "failed");
    expect(unchanged).toMatchObject({ state: "failed", note: null, events: [], told: [] });
    expect(await committed()).toBe("0.00");
  });

  /**
   * A purchase the provider fails (its earlier attempt), which a person requeues, and its new attempt, which the
   * provider fails too or not: returns the purchase's id and both attempts' debits.
   */
  async function requeued(phone: string, newAttempt: "succeeded" | "failed") {
    const first = await buyFailed(phone);
    const found = await findPurchase(env.test.database.db, String(first.row.id));
    const person = { actor: "ops@example.com", reason: "the customer has no data" };
    expect(await requeueAsPerson(env.test.database.db, found, person)).toMatchObject({ ok: true });
    env.sandbox.setOptions({ failRate: newAttempt === "failed" ? 1 : 0 });
    await env.run();
    env.sandbox.setOptions({ failRate: 0 });
    const again = env.sandbox.debits().at(-1)!;
    expect(again.reference).not.toBe(first.debit.reference);
    expect((await ledger()).find((r) => r.id === first.row.id)).toMatchObject({
      state: newAttempt,
      reference: again.reference,
    });
    return { id: first.row.id, earlier: first.debit, again };
  }

  it("a requeued purchase whose failed attempt the provider delivers later: that attempt's notification, confirmed once verify catches up, flags the purchase earlier_attempt_delivered in its new attempt's state, tells it once and counts that attempt's charge against the daily budget once", async () => {
    const { id, earlier, again } = await requeued("08031230017", "succeeded");
    expect(await committed()).toBe("305.00"); // the new attempt's; the failed one's was given back
    const hook = await startReceiver();
    lagBehindNotifications(hook.url);
    env.sandbox.deliverLate(earlier.reference); // charged again: the customer may have the data twice
    await env.sandbox.deliverNotifications();
    const [result] = await hook.settled();
    expect(result).toMatchObject({ outcome: "matched", purchaseId: id });
    expect(result!.reason).toBe(
      `the notification says ${earlier.reference} successful, the transaction of purchase ${id}'s attempt before a person requeued it (that attempt ended failed), and its verify now says success: flagged earlier_attempt_delivered, for a person`,
    );

    const flagged = await flagOf(id, "earlier_attempt_delivered", "succeeded");
    expect(flagged.state).toBe("succeeded"); // its new attempt's, untouched
    expect((await ledger()).find((r) => r.id === id)!.reference).toBe(again.reference);
    expect(flagged.note).toMatch(
      new RegExp(
        `^earlier_attempt_delivered: the provider's verify of ${earlier.reference} \\(this purchase's attempt before a person requeued it, which ended failed\\) now says success \\(its notification said successful\\): the provider charged for that attempt`,
      ),
    );
    expect(flagged.note).toContain("the customer has the data twice");
    expect(flagged.events).toEqual([
      expect.objectContaining({ actor: "webhook+verify", to_state: "succeeded", reason: flagged.note }),
    ]);
    // Told with the earlier attempt's reference and charge, not the new attempt's.
    expect(flagged.told).toEqual([
      {
        trigger: "earlier_attempt_delivered",
        kind: "open",
        facts: expect.objectContaining({
          purchase: id,
          state: "succeeded",
          amount: "305.00",
          reference: earlier.reference,
        }),
      },
    ]);
    const stats = await readLedgerStats(env.test.database.db, new Date(), "Africa/Lagos");
    expect(stats.noted.earlier_attempt_delivered).toBe(1);
    expect(await committed()).toBe("610.00"); // both attempts' charges
    expect(stats.spentToday).toBe("610.00");
    const report = await makeLedgerReport(env.test.database.db, {
      now: new Date(),
      since: new Date(Date.now() - 86_400_000),
      timeZone: "Africa/Lagos",
    });
    expect(report.open).toEqual([expect.objectContaining({ id, state: "succeeded", note: flagged.note })]);

    // The same notification processed again, and another notification of that transaction: nothing twice.
    const [stored] = await notifications();
    await processAgain(stored!.id);
    const resent = JSON.stringify({ ...JSON.parse(notificationFor(earlier)), message: "delivered" });
    expect((await post(hook.url, resent, { "x-signature": sign(resent) })).status).toBe(200);
    const [, repeated] = await hook.settled();
    expect(repeated!.reason).toBe(
      `the notification says ${earlier.reference} successful, the transaction of purchase ${id}'s attempt before a person requeued it (that attempt ended failed); that attempt's delivery is flagged already`,
    );
    const again2 = await flagOf(id, "earlier_attempt_delivered", "succeeded");
    expect(again2.events).toHaveLength(1);
    expect(again2.told).toHaveLength(1);
    expect(await committed()).toBe("610.00");

    // The cap counts the charge: with 610.00 spent of a 700.00 day, the next 305.00 purchase is refused.
    env.sandbox.setOptions({ notifyUrl: "" });
    await insertPurchases(env.test.database.db, [purchase("08031230018")], "test");
    await env.run({ settings: { budget: { daily_limit: "700" } } });
    const [next] = await rows<{ state: string; reason: string }>(
      env.test.database.db,
      sql`select state, reason from purchases where id <> ${id}`,
    );
    expect(next).toEqual({
      state: "rejected",
      reason: expect.stringMatching(
        /^daily_budget: daily budget: 610(\.00)? committed today \+ 305(\.00)? > /,
      ),
    });
  });

  it("a notification that a requeued purchase's failed attempt succeeded, which its verify never confirms, or confirms of another transaction: nothing changes, the reason says why", async () => {
    const { id, earlier } = await requeued("08031230019", "failed");
    const hook = await startReceiver();
    const body = notificationFor(earlier);
    expect((await post(hook.url, body, { "x-signature": sign(body) })).status).toBe(200);
    const [result] = await hook.settled();
    const said = `the notification says ${earlier.reference} successful, the transaction of purchase ${id}'s attempt before a person requeued it (that attempt ended failed)`;
    expect(result).toMatchObject({ outcome: "matched", purchaseId: id });
    expect(result!.reason).toBe(
      `${said}, but its verify still says failed after verification.timeout: nothing changed`,
    );

    env.sandbox.deliverLate(earlier.reference);
    env.sandbox.setOptions({ verifyLie: "reference" });
    const lie = JSON.stringify({ ...JSON.parse(body), message: "delivered" });
    expect((await post(hook.url, lie, { "x-signature": sign(lie) })).status).toBe(200);
    const [, lied] = await hook.settled();
    expect(lied!.reason).toBe(
      `${said}, but its verify answer disagrees with the purchase: it names reference ${earlier.reference}X, not ${earlier.reference}: nothing changed`,
    );
    const unchanged = await flagOf(id, "earlier_attempt_delivered", "failed");
    expect(unchanged).toMatchObject({ state: "failed", note: null, told: [] });
    expect(unchanged.events.map((e) => e.to_state)).toEqual(["queued"]); // the requeue's, and no flag
    expect(await committed()).toBe("0.00");
  });

  it("a purchase flagged delivered_after_failure that a person requeues: its new attempt's late delivery is flagged too, and the first attempt's, flagged and counted before the requeue, is neither flagged nor counted again", async () => {
    const { row, debit } = await buyFailed("08031230020");
    const hook = await startReceiver();
    env.sandbox.setOptions({ notifyUrl: hook.url, notifyHold: true });
    env.sandbox.deliverLate(debit.reference);
    await env.sandbox.deliverNotifications();
    expect((await hook.settled())[0]!.reason).toContain("flagged delivered_after_failure, for a person");
    expect(await committed()).toBe("305.00");

    // The person has seen the flag and buys again: the new attempt is another transaction, which fails too.
    env.sandbox.setOptions({ notifyUrl: "", failRate: 1 });
    const found = await findPurchase(env.test.database.db, String(row.id));
    const person = { actor: "ops@example.com", reason: "the customer has no data" };
    expect(await requeueAsPerson(env.test.database.db, found, person)).toMatchObject({ ok: true });
    expect((await flagOf(row.id, "delivered_after_failure", "queued")).note).toBeNull();
    await env.run();
    env.sandbox.setOptions({ failRate: 0 });
    const second = env.sandbox.debits().at(-1)!;
    expect((await ledger())[0]).toMatchObject({ state: "failed", reference: second.reference });
    expect(await committed()).toBe("305.00");

    // The provider delivers the new attempt late too: flagged as the first was, its charge counted.
    env.sandbox.setOptions({ notifyUrl: hook.url, notifyHold: true });
    env.sandbox.deliverLate(second.reference);
    await env.sandbox.deliverNotifications();
    const [, delivered] = await hook.settled();
    expect(delivered).toMatchObject({ outcome: "matched", purchaseId: row.id });
    expect(delivered!.reason).toBe(
      `the notification says ${second.reference} successful after purchase ${row.id} failed, and its verify now says success: flagged delivered_after_failure, for a person`,
    );
    const flagged = await flagOf(row.id, "delivered_after_failure", "failed");
    expect(flagged.note).toMatch(
      new RegExp(`^delivered_after_failure: the provider's verify of ${second.reference} `),
    );
    expect(flagged.told).toHaveLength(2); // one per attempt
    expect(await committed()).toBe("610.00");

    // The first attempt's notification again: its delivery was flagged before the requeue, and is not again.
    const resent = JSON.stringify({ ...JSON.parse(notificationFor(debit)), message: "delivered" });
    expect((await post(hook.url, resent, { "x-signature": sign(resent) })).status).toBe(200);
    const [, , first] = await hook.settled();
    expect(first!.reason).toBe(
      `the notification says ${debit.reference} successful, the transaction of purchase ${row.id}'s attempt before a person requeued it (that attempt ended failed); that attempt's delivery is flagged already`,
    );
    expect((await flagOf(row.id, "earlier_attempt_delivered", "failed")).told).toEqual([]);
    expect(await committed()).toBe("610.00");
  });

  // The other ways a purchase answer is lost after the debit (500-after above, hang-after below): the connection
  // reset, and a gateway that times out — the client gives up (a response timeout) before the gateway's 504.
  // The sandbox's verify keeps new references unknown and then pending for a poll each, except once it has
  // sent its notification (the transaction is final then), so the notification's verify read is final.
  it.each([
    ["a connection reset after the debit", "succeeded", { rateResetAfter: 1 }],
    ["a connection reset after the debit", "failed", { rateResetAfter: 1 }],
    ["a response timeout after the debit", "succeeded", { rateTimeoutAfter: 1 }],
    ["a response timeout after the debit", "failed", { rateTimeoutAfter: 1 }],
  ] as const)(
    "a purchase answer lost to %s, then the signed notification: %s with its reference, proof in the event, one debit",
    async (_lost, outcome, fault) => {
      const hook = await startReceiver();
      env.sandbox.setOptions({
        verifyNotFoundPolls: 1,
        verifyPendingPolls: 1,
        failRate: outcome === "failed" ? 1 : 0,
        notifyUrl: hook.url,
        notifyHold: true,
        notifyDuplicates: 1,
      });
      env.sandbox.setFaults({ endpoints: { data: fault } });
      // Its own client for the POST, giving up on an answer after 300 ms (the gateway holds it for 60 s).
      const impatient = resellerFor(env.sandbox, { timeout: { connect: 1000, headers: 300, body: 300 } });
      try {
        await insertPurchases(env.test.database.db, [purchase("08031230030")], "test");
        await env.run({ through: impatient });
      } finally {
        await impatient.close();
      }
      env.sandbox.setFaults({ endpoints: {} });
      const [lost] = await ledger();
      expect(lost).toMatchObject({ state: "in_doubt", reference: null });
      const posts = () => env.sandbox.requests().filter((r) => r.path === "/public/api/data");
      expect(posts()).toMatchObject([{ fault: Object.keys(fault)[0] }]);
      const [debit] = env.sandbox.debits();
      expect(debit).toMatchObject({ phone_number: "08031230030", amount: "305.00" });
      expect(env.sandbox.wallet()).toBe("999695.00");

      await env.sandbox.deliverNotifications();
      await hook.settled();
      const [row] = await rows<{
        id: number;
        state: string;
        reference: string;
        refund_amount: string | null;
      }>(
        env.test.database.db,
        sql`select id::int as id, state, reference, refund_amount::text as refund_amount from purchases`,
      );
      expect(row).toEqual({
        id: lost!.id,
        state: outcome,
        reference: debit!.reference,
        refund_amount: outcome === "failed" ? "305.00" : null,
      });
      const stored = await notifications();
      expect(stored).toHaveLength(1); // the duplicate delivery was recognised
      expect(stored[0]).toMatchObject({
        reference: debit!.reference,
        outcome: "settled",
        purchase_id: row!.id,
      });
      const events = await rows<{ actor: string; from_state: string; reason: string; response: unknown }>(
        env.test.database.db,
        sql`select actor, from_state, reason, response from purchase_events
          where purchase_id = ${row!.id} and to_state = ${outcome}`,
      );
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ actor: "webhook+verify", from_state: "in_doubt" });
      expect(events[0]!.reason).toContain(
        `provider notification ${stored[0]!.id} named reference ${debit!.reference}`,
      );
      expect(JSON.stringify(events[0]!.response)).toContain(debit!.reference);
      // Bought once: one POST, one debit, and the wallet moved by that debit only (refunded when it failed).
      expect(posts()).toHaveLength(1);
      expect(env.sandbox.debits()).toHaveLength(1);
      expect(env.sandbox.wallet()).toBe(outcome === "failed" ? "1000000.00" : "999695.00");
      expect(env.sandbox.refunds()).toHaveLength(outcome === "failed" ? 1 : 0);
    },
  );

  it("a notification saying failed does not fail a purchase the verify answer says succeeded", async () => {
    const hook = await startReceiver();
    await buyLosingAnswers(["08031230003"]);
    const [debit] = env.sandbox.debits();
    const body = notificationFor(debit!, "failed");
    expect((await post(hook.url, body, { "x-signature": sign(body) })).status).toBe(200);
    await hook.settled();
    expect((await ledger())[0]).toMatchObject({ state: "succeeded", reference: debit!.reference });
  });

  it("the provider failed it: failed with its reference and the refund, by the verify answer", async () => {
    const hook = await startReceiver();
    env.sandbox.setOptions({ failRate: 1, notifyUrl: hook.url, notifyHold: true });
    await buyLosingAnswers(["08031230004"]);
    const [debit] = env.sandbox.debits();
    await env.sandbox.deliverNotifications();
    await hook.settled();
    const [row] = await rows<{ state: string; reference: string; refund_amount: string }>(
      env.test.database.db,
      sql`select state, reference, refund_amount::text as refund_amount from purchases`,
    );
    expect(row).toEqual({ state: "failed", reference: debit!.reference, refund_amount: "305.00" });
  });

  it("a notification for an unverified purchase verifies it now and settles it from the verify answer", async () => {
    const hook = await startReceiver();
    env.sandbox.setOptions({ verifyPendingPolls: 1000 }); // verify says pending until the run gives up
    await insertPurchases(env.test.database.db, [purchase("08031230007")], "test");
    await env.run({
      settings: {
        verification: { initial_delay: "1ms", timeout: "30ms", max_interval: "10ms", horizon: "72h" },
      },
    });
    const [before] = await ledger();
    expect(before!.state).toBe("unverified");
    env.sandbox.setOptions({ verifyPendingPolls: 0 });
    const [debit] = env.sandbox.debits();
    const body = notificationFor(debit!);
    expect((await post(hook.url, body, { "x-signature": sign(body) })).status).toBe(200);
    const [result] = await hook.settled();
    expect(result).toMatchObject({ outcome: "settled", purchaseId: before!.id });
    expect((await ledger())[0]).toMatchObject({ state: "succeeded", reference: debit!.reference });
    const [event] = await rows<{ actor: string }>(
      env.test.database.db,
      sql`select actor from purchase_events where to_state = 'succeeded'`,
    );
    expect(event!.actor).toBe("webhook+verify");
  });

  it("a notification for a purchase whose verify answer disagreed (verify_mismatch) leaves it to a person", async () => {
    const hook = await startReceiver();
    env.sandbox.setOptions({ verifyLie: "phone" }); // the verify answer names another phone
    await insertPurchases(env.test.database.db, [purchase("08031230009")], "test");
    await env.run();
    const [before] = await ledger();
    expect(before!.state).toBe("unverified");
    // Verify now tells the other story; the provider notifies success.
    env.sandbox.setOptions({ verifyLie: "none" });
    const [debit] = env.sandbox.debits();
    const body = notificationFor(debit!);
    expect((await post(hook.url, body, { "x-signature": sign(body) })).status).toBe(200);
    const [result] = await hook.settled();
    expect(result).toMatchObject({ outcome: "matched", purchaseId: before!.id });
    expect(result!.reason).toContain("verify_mismatch");
    expect((await ledger())[0]).toMatchObject({ state: "unverified", reference: debit!.reference });
  });

  it("a notification that arrives before the purchase's own answer changes nothing until the purchase is in_doubt", async () => {
    const hook = await startReceiver();
    // The purchase's answer never comes (the client gives up after its timeout): meanwhile the notification.
    env.sandbox.setFaults({ endpoints: { data: { rateHangAfter: 1 } } });
    env.sandbox.setOptions({ notifyUrl: hook.url, notifyHold: true });
    await insertPurchases(env.test.database.db, [purchase("08031230008")], "test");
    const running = env.run();
    await waitUntil("the debit", () => env.sandbox.debits().length === 1);
    expect((await ledger())[0]!.state).toBe("submitting");
    await env.sandbox.deliverNotifications();
    const [result] = await hook.settled();
    expect(result).toMatchObject({ outcome: "unmatched", purchaseId: null });
    expect((await ledger())[0]!.state).toBe("submitting");
    await running;
    env.sandbox.setFaults({ endpoints: {} });
    expect((await ledger())[0]).toMatchObject({ state: "in_doubt", reference: null });
    expect(env.sandbox.debits()).toHaveLength(1);
    // Now in_doubt: the unmatched notification is looked at again, and verify proves it.
    const deps = notificationDeps({
      db: env.test.database.db,
      reseller: env.reseller,
      config: testConfig(env.sandbox, { webhooks: { enabled: true, secret: SECRET } }),
      logger: silentLogger(),
      clock: systemClock,
    });
    expect(await retryUnmatched(deps)).toMatchObject([{ outcome: "settled" }]);
    expect((await ledger())[0]).toMatchObject({
      state: "succeeded",
      reference: env.sandbox.debits()[0]!.reference,
    });
    expect(await retryUnmatched(deps)).toEqual([]);
  });

  it("two in_doubt candidates for one notification: nothing changes, the notification is unmatched", async () => {
    const hook = await startReceiver();
    await buyLosingAnswers(["08031230005", "08031230005"]);
    const [debit] = env.sandbox.debits();
    const before = await ledger();
    const body = notificationFor(debit!);
    expect((await post(hook.url, body, { "x-signature": sign(body) })).status).toBe(200);
    await hook.settled();
    expect(await ledger()).toEqual(before);
    const [stored] = await notifications();
    expect(stored).toMatchObject({ outcome: "unmatched" });
    expect(stored!.reason).toMatch(/^2 in_doubt purchases could be it/);
    // The report's "Needs a person" points each candidate at the notification that could be it.
    const report = await makeLedgerReport(env.test.database.db, {
      now: new Date(),
      since: new Date(Date.now() - 86_400_000),
      timeZone: "Africa/Lagos",
    });
    const open = report.open.filter((o) => o.state === "in_doubt");
    expect(open).toHaveLength(2);
    for (const o of open)
      expect(o.note).toBe(
        `1 unmatched provider notification could be this purchase (topsync purchases show ${o.id})`,
      );
  });

  it("a notification writing the phone as a JSON number (its leading 0 lost) settles the one in_doubt candidate", async () => {
    // Before, 8031230007 (the number 08031230007 as JSON writes it) was no phone at all: the evidence needs one, so
    // the purchase stayed in_doubt for a person.
    const hook = await startReceiver();
    await buyLosingAnswers(["08031230007"]);
    const [debit] = env.sandbox.debits();
    const body = notificationFor(debit!).replace('"phone_number":"08031230007"', '"phone_number":8031230007');
    expect(body).toContain('"phone_number":8031230007');
    expect((await post(hook.url, body, { "x-signature": sign(body) })).status).toBe(200);
    await hook.settled();
    expect(await ledger()).toMatchObject([{ state: "succeeded", reference: debit!.reference }]);
    expect((await notifications())[0]).toMatchObject({ outcome: "settled" });
  });

  it("a verify answer that disagrees with the one candidate changes nothing", async () => {
    const hook = await startReceiver();
    await buyLosingAnswers(["08031230006"]);
    const [debit] = env.sandbox.debits();
    env.sandbox.setOptions({ verifyLie: "amount" });
    const before = await ledger();
    const body = notificationFor(debit!);
    expect((await post(hook.url, body, { "x-signature": sign(body) })).status).toBe(200);
    await hook.settled();
    expect(await ledger()).toEqual(before);
    const [stored] = await notifications();
    expect(stored).toMatchObject({ outcome: "unmatched" });
    expect(stored!.reason).toMatch(/disagrees with purchase/);
  });

  it("15 in_doubt purchases notified before the provider's verify has caught up (404, then pending): each is read again with backoff, all 15 settled by proof", async () => {
    // The provider's verify does not know a notified reference at its first read (this proxy), then says pending
    // (the sandbox lags its own notifications by two reads), then final.
    const seen = new Set<string>();
    const lagging = await resellerProxy(env.sandbox.resellerUrl, (request) => {
      const reference = verifiedReference(request.path);
      if (reference === undefined || seen.has(reference)) return undefined;
      seen.add(reference);
      return { status: 404, body: { status: false, message: "Transaction not found." } };
    });
    const verifyClient = resellerFor({ resellerUrl: lagging.url, apiKey: env.sandbox.apiKey });
    try {
      const hook = await startReceiver({}, verifyClient);
      env.sandbox.setOptions({
        verifyNotFoundPolls: 1,
        verifyPendingPolls: 1000, // never final by its own polls: only the notification's lag ends
        notifiedPendingPolls: 2,
        notifyUrl: hook.url,
        notifyHold: true,
        notifyDuplicates: 0,
      });
      const phones = Array.from({ length: 15 }, (_, i) => `080312401${String(i).padStart(2, "0")}`);
      await buyLosingAnswers(phones);
      expect(env.sandbox.debits()).toHaveLength(15);
      await env.sandbox.deliverNotifications();
      const results = await hook.settled();
      expect(results.map((r) => r?.outcome)).toEqual(phones.map(() => "settled"));
      const debitOf = new Map(env.sandbox.debits().map((d) => [d.phone_number, d.reference]));
      for (const row of await ledger())
        expect(row).toMatchObject({ state: "succeeded", reference: debitOf.get(row.phone) });
      // Each reference was read until final: the 404, the two pending answers, then success.
      const reads = env.sandbox.requests().filter((r) => r.path.startsWith("/public/api/transaction/"));
      expect(reads).toHaveLength(15 * 3);
      expect(env.sandbox.debits()).toHaveLength(15);
    } finally {
      await verifyClient.close();
      await lagging.close();
    }
  });

  it("a notification for an unverified purchase, come before the provider's verify caught up: read again with backoff until final, settled", async () => {
    const hook = await startReceiver();
    // Never final by its own polls; two reads after the notification still say pending.
    env.sandbox.setOptions({
      verifyPendingPolls: 100_000,
      notifiedPendingPolls: 2,
      notifyUrl: hook.url,
      notifyHold: true,
      notifyDuplicates: 0,
    });
    await insertPurchases(env.test.database.db, [purchase("08031240400")], "test");
    await env.run({
      settings: {
        verification: { initial_delay: "1ms", timeout: "30ms", max_interval: "10ms", horizon: "72h" },
      },
    });
    const [before] = await ledger();
    expect(before!.state).toBe("unverified");
    await env.sandbox.deliverNotifications();
    const [result] = await hook.settled();
    expect(result).toMatchObject({ outcome: "settled", purchaseId: before!.id });
    expect((await ledger())[0]).toMatchObject({
      state: "succeeded",
      reference: env.sandbox.debits()[0]!.reference,
    });
    const [event] = await rows<{ actor: string }>(
      env.test.database.db,
      sql`select actor from purchase_events where to_state = 'succeeded'`,
    );
    expect(event!.actor).toBe("webhook+verify");
  });

  it("a verify still pending after verification.timeout from the notification settles nothing: unmatched, for a person", async () => {
    const hook = await startReceiver();
    env.sandbox.setOptions({
      verifyNotFoundPolls: 1,
      verifyPendingPolls: 100_000,
      notifiedPendingPolls: 100_000,
      notifyUrl: hook.url,
      notifyHold: true,
      notifyDuplicates: 0,
    });
    await buyLosingAnswers(["08031240200"]);
    const before = await ledger();
    const started = Date.now();
    await env.sandbox.deliverNotifications();
    const [result] = await hook.settled();
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500); // read again until verification.timeout (2s)
    expect(result).toMatchObject({ outcome: "unmatched", purchaseId: before[0]!.id });
    expect(result!.reason).toMatch(
      /still says pending, not final, after verification\.timeout: nothing changed$/,
    );
    expect(await ledger()).toEqual(before);
    const reads = env.sandbox.requests().filter((r) => r.path.startsWith("/public/api/transaction/"));
    expect(reads.length).toBeGreaterThan(5);
  });

  it("a notification for purchase B, come before B's own answer, does not settle purchase A the provider never took: A stays in_doubt, B succeeds, one debit", async () => {
    const phone = "08031240300";
    const hook = await startReceiver();
    // A: the provider answers 500 before taking it (no debit), so it is in_doubt.
    env.sandbox.setFaults({ endpoints: { data: { rate500Before: 1 } } });
    await insertPurchases(env.test.database.db, [purchase(phone, "A")], "test");
    const deps = {
      database: env.test.database,
      reseller: env.reseller,
      config: testConfig(env.sandbox),
      logger: silentLogger(),
    };
    await executePurchases(deps, { concurrency: 1, retryWaitMs: 0 });
    env.sandbox.setFaults({ endpoints: {} });
    const [a] = await ledger();
    expect(a).toMatchObject({ state: "in_doubt", reference: null });
    expect(env.sandbox.debits()).toHaveLength(0);

    // B: the operator buys again for the phone, same plan. The provider takes it and notifies at once, while
    // B's own answer is still on its way (sent a byte at a time).
    env.sandbox.setOptions({
      notifyUrl: hook.url,
      notifyHold: true,
      notifyDuplicates: 0,
      lies: { trickleMs: 4 },
    });
    await insertPurchases(env.test.database.db, [purchase(phone, "B")], "test");
    const running = executePurchases(deps, { concurrency: 1, retryWaitMs: 0 });
    await waitUntil("B's debit", () => env.sandbox.debits().length === 1);
    const b = (await ledger())[1]!;
    expect(b.state).toBe("submitting");
    await env.sandbox.deliverNotifications();
    const [result] = await hook.settled();
    expect(result).toMatchObject({ outcome: "unmatched", purchaseId: a!.id });
    expect(result!.reason).toContain(
      `in_doubt purchase ${a!.id} could be it, but so could purchase ${b.id} (submitting)`,
    );
    expect(result!.reason).toContain("not which purchase made it");
    expect((await ledger())[0]).toMatchObject({ state: "in_doubt", reference: null });

    await running;
    env.sandbox.setOptions({ lies: {} });
    const debit = env.sandbox.debits()[0]!;
    const [afterA, afterB] = await ledger();
    expect(afterA).toMatchObject({ id: a!.id, state: "in_doubt", reference: null });
    expect(afterB).toMatchObject({ id: b.id, state: "succeeded", reference: debit.reference });
    expect(env.sandbox.debits()).toHaveLength(1);
    const [stored] = await notifications();
    expect(stored).toMatchObject({ outcome: "unmatched", purchase_id: a!.id, reference: debit.reference });
    // What happened is counted once, and A is left for a person.
    const report = await makeLedgerReport(env.test.database.db, {
      now: new Date(),
      since: new Date(Date.now() - 86_400_000),
      timeZone: "Africa/Lagos",
    });
    expect(report.purchases.spent.toFixed(2)).toBe("305.00");
    expect(report.open.map((o) => [o.id, o.state])).toEqual([[a!.id, "in_doubt"]]);
  });
});
