// Settlement from the provider's evidence, attacked from outside: a notification or a statement line names a
// transaction no purchase carries, and only a verify answer that shows this purchase's phone and amount may settle
// the in_doubt purchase it matched. A verify answer that names neither proves nothing about which purchase it is.
import { createHmac } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import { rows } from "../../src/db/client.js";
import { silentLogger } from "../../src/log/logger.js";
import { insertPurchases, type NewPurchase } from "../../src/purchases/ledger.js";
import { NotificationBacklog } from "../../src/purchases/notification-backlog.js";
import {
  type NotificationResult,
  notificationDeps,
  parseNotification,
  processNotification,
} from "../../src/purchases/notifications.js";
import { matchProof } from "../../src/purchases/proof-match.js";
import { prunePurchases } from "../../src/purchases/prune.js";
import type { ResellerClient } from "../../src/reseller/client.js";
import type { Sandbox } from "../../src/sandbox/index.js";
import { startHealthServer } from "../../src/server/health.js";
import { Readiness } from "../../src/server/readiness.js";
import { createWebhookReceiver } from "../../src/server/webhook.js";
import { freePort } from "../daemon/helpers.js";
import { runCli } from "../helpers/cli.js";
import { resellerFor } from "../helpers/clients.js";
import { testConfig, writeConfigFile } from "../helpers/config.js";
import { storeNotice } from "../helpers/notification.js";
import { type ResellerProxy, resellerProxy, verifiedReference } from "../helpers/reseller-proxy.js";
import { rivalSettledByPerson, sandboxLedger } from "../helpers/sandbox-ledger.js";
import { reconcileApplied, statementOf } from "../helpers/statement.js";

const purchase = (phone: string, key = phone): NewPurchase => ({
  request_key: `proof:${key}`,
  source: "buy",
  network: "MTN",
  plan_id: "102", // listed at 305.00
  phone,
  ported: false,
});

describe("settlement from evidence, on postgres", () => {
  const env = sandboxLedger(11);
  let proxy: ResellerProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });

  const ledger = () =>
    rows<{ id: number; state: string; reference: string | null }>(
      env.test.database.db,
      sql`select id::int as id, state, reference from purchases order by id`,
    );

  /** Buys the phones with every purchase answer lost after the debit (a 500): each ends in_doubt. */
  async function buyLosingAnswers(phones: string[]) {
    await insertPurchases(
      env.test.database.db,
      phones.map((p) => purchase(p)),
      "test",
    );
    await env.runLosingAnswers();
    expect((await ledger()).map((r) => r.state)).toEqual(phones.map(() => "in_doubt"));
  }

  /** What processing a notification needs, verifying through `through` (the sandbox by default). */
  const depsThrough = (through: ResellerClient = env.reseller) =>
    notificationDeps({
      db: env.test.database.db,
      reseller: through,
      config: testConfig(env.sandbox, { webhooks: { enabled: true, secret: "s" } }),
      logger: silentLogger(),
      clock: systemClock,
    });

  /** A provider whose verify answers leave out the transaction's phone and amount. */
  async function verifyWithoutPhoneOrAmount(): Promise<ResellerProxy> {
    proxy = await resellerProxy(env.sandbox.resellerUrl, (request, upstream) => {
      if (!verifiedReference(request.path) || upstream.status !== 200) return undefined;
      const body = upstream.body as { data: { transaction: Record<string, unknown> } };
      delete body.data.transaction.phone_number;
      delete body.data.transaction.amount;
      return { status: 200, body };
    });
    return proxy;
  }

  it("a notification whose verify answer names no phone and no amount does not settle the in_doubt purchase it matched", async () => {
    await buyLosingAnswers(["08031239001"]);
    const [debit] = env.sandbox.debits();
    const lying = await verifyWithoutPhoneOrAmount();
    const through = resellerFor({ resellerUrl: lying.url, apiKey: env.sandbox.apiKey });
    try {
      const { stored } = await storeNotice(env.test.database.db, "successful", {
        reference: debit!.reference,
        amount: debit!.amount,
        phone_number: debit!.phone_number,
        date: debit!.at,
      });
      const deps = depsThrough(through);
      const result = await processNotification(deps, stored.id);
      expect(result).toMatchObject({ outcome: "unmatched" });
      expect(result!.reason).toMatch(/names no phone number/);
      expect(await ledger()).toMatchObject([{ state: "in_doubt", reference: null }]);
    } finally {
      await through.close();
    }
  });

  it("reconcile --apply: a statement line whose verify answer names no phone and no amount leaves the in_doubt purchase as it is", async () => {
    await buyLosingAnswers(["08031239002"]);
    const [debit] = env.sandbox.debits();
    const lying = await verifyWithoutPhoneOrAmount();
    const statement = statementOf([debit!]);
    const file = writeConfigFile(
      {
        resellerUrl: lying.url,
        apiKey: env.sandbox.apiKey,
        analyticsUrl: env.sandbox.analyticsUrl,
        analyticsApiKey: env.sandbox.analyticsApiKey,
      } as Sandbox,
      env.test.url,
    ).file;
    const { code, stderr, report } = await reconcileApplied<{
      resolvable: unknown[];
      applied: Array<{ result: string }>;
    }>(file, statement);
    expect(code, stderr).toBe(0);
    expect(report.resolvable).toHaveLength(1);
    expect(report.applied).toMatchObject([{ result: "unchanged" }]);
    expect(await ledger()).toMatchObject([{ state: "in_doubt", reference: null }]);
  });

  it("a pruned purchase's reference still names it: its statement line does not settle the in_doubt purchase bought for the same phone before it", async () => {
    // The operator's case: purchase A's answer is lost (in_doubt, the provider never made a transaction of it...
    // or did); they buy again for the same phone, B succeeds. B is pruned later, A still waits for a person.
    await buyLosingAnswers(["08031239003"]);
    await insertPurchases(env.test.database.db, [purchase("08031239003", "again")], "test");
    await env.run();
    const [a, b] = await ledger();
    expect(a).toMatchObject({ state: "in_doubt", reference: null });
    expect(b).toMatchObject({ state: "succeeded" });
    const bought = env.sandbox.debits().find((d) => d.reference === b!.reference)!;
    await rows(
      env.test.database.db,
      sql`update kv set value = jsonb_set(value, '{seq}', '1000000') where key = 'wallet'`,
    );
    expect(await prunePurchases(env.test.database, new Date())).toMatchObject({ purchases: 1 });
    expect((await ledger()).map((r) => r.id)).toEqual([a!.id]);

    const file = writeConfigFile(env.sandbox, env.test.url).file;
    const { code, stderr, report } = await reconcileApplied<{
      matched: number;
      resolvable: unknown[];
      providerOnly: unknown[];
    }>(file, statementOf([bought]));
    expect(code, stderr).toBe(0);
    expect(report.resolvable).toEqual([]);
    expect(report).toMatchObject({ matched: 1, providerOnly: [] });
    expect(await ledger()).toMatchObject([{ id: a!.id, state: "in_doubt", reference: null }]);

    // A notification naming B's transaction (the provider says it again, reversed) does not settle A either.
    const { stored } = await storeNotice(env.test.database.db, "reversed", {
      reference: bought.reference,
      amount: bought.amount,
      phone_number: bought.phone_number,
      date: bought.at,
    });
    const deps = depsThrough();
    expect(await processNotification(deps, stored.id)).toMatchObject({
      outcome: "matched",
      purchaseId: b!.id,
    });
    expect(await ledger()).toMatchObject([{ id: a!.id, state: "in_doubt", reference: null }]);
  });

  it("a purchase a person settled without its reference, then pruned, still keeps its transaction's statement line and notification from the in_doubt purchase bought for the same phone", async () => {
    const phone = "08031239020";
    // A: the provider answers 500 before taking it (no debit). B: taken, its answer lost (a debit). A person settles
    // B from the provider's dashboard, without its reference; B is pruned later.
    const { a, b, debit, file } = await rivalSettledByPerson(env, purchase(phone, "A"), purchase(phone, "B"));
    await rows(
      env.test.database.db,
      sql`update kv set value = jsonb_set(value, '{seq}', '1000000') where key = 'wallet'`,
    );
    expect(await prunePurchases(env.test.database, new Date())).toMatchObject({ purchases: 1 });
    expect((await ledger()).map((r) => r.id)).toEqual([a]);

    // The provider's statement lists B's transaction: its phone and amount agree with A too.
    const { code, stderr, report } = await reconcileApplied<{
      resolvable: unknown[];
      unmatched: Array<{ why: string }>;
      applied: unknown[];
    }>(file, statementOf([debit]));
    expect(code, stderr).toBe(0);
    expect(report.resolvable).toEqual([]);
    expect(report.applied).toEqual([]);
    expect(report.unmatched[0]!.why).toContain(`purchase ${b} (succeeded, pruned)`);
    expect(await ledger()).toMatchObject([{ id: a, state: "in_doubt", reference: null }]);

    // Nor does the provider's notification of it.
    const { stored } = await storeNotice(env.test.database.db, "successful", {
      reference: debit.reference,
      amount: debit.amount,
      phone_number: debit.phone_number,
      date: debit.at,
    });
    expect(await processNotification(depsThrough(), stored.id)).toMatchObject({ outcome: "unmatched" });
    expect(await ledger()).toMatchObject([{ id: a, state: "in_doubt", reference: null }]);
  });

  it("a notification's date without a zone is UTC, as the seed says, whatever the machine's zone: its in_doubt purchase is found and settled", async () => {
    const zone = process.env.TZ;
    process.env.TZ = "Africa/Lagos"; // an operator's machine an hour east of UTC
    try {
      await buyLosingAnswers(["08031239004"]);
      const [debit] = env.sandbox.debits();
      expect(debit!.at).toMatch(/Z$/);
      const { parsed, stored } = await storeNotice(env.test.database.db, "successful", {
        reference: debit!.reference,
        amount: debit!.amount,
        phone_number: debit!.phone_number,
        date: debit!.at.replace(/Z$/, ""), // a provider that leaves the Z off
      });
      expect(parsed.notifiedAt?.getTime()).toBe(new Date(debit!.at).getTime());
      const deps = depsThrough();
      expect(await processNotification(deps, stored.id)).toMatchObject({ outcome: "settled" });
      expect(await ledger()).toMatchObject([{ state: "succeeded", reference: debit!.reference }]);
      // A date that is not ISO 8601 (day and month in an order the seed does not name) is no date, never a guess.
      const us = parseNotification({ data: { reference: "R1", date: "11/05/2026 10:00" } });
      expect(us).toMatchObject({ notifiedAt: null });
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it("a masked phone that more purchases show than one look reads: no purchase is the only one it can be", async () => {
    // 1,001 purchases sent in the last minutes whose phones show as 0803****567: purchase 1 in_doubt at 305.00,
    // 999 others at 500.00, and the last at 305.00 too, in flight — a rival for the evidence below.
    await insertPurchases(
      env.test.database.db,
      Array.from({ length: 1001 }, (_, i) => purchase(`0803${String(i).padStart(4, "0")}567`, `many:${i}`)),
      "test",
    );
    await rows(
      env.test.database.db,
      sql`update purchases set state = case when id = 1 then 'in_doubt' else 'submitted' end,
            amount = case when id in (1, 1001) then 305 else 500 end,
            reference = case when id = 1 then null else 'R' || id end,
            submitted_at = case when id = 1 then null else now() end`,
    );
    await rows(
      env.test.database.db,
      sql`insert into purchase_events (purchase_id, actor, from_state, to_state)
          select id, 'test', 'queued', 'submitting' from purchases`,
    );
    const match = await matchProof(
      env.test.database.db,
      {
        reference: "NOT-OURS",
        phone: "0803****567",
        amount: "305.00",
        plan: null,
        at: new Date(),
        what: "a statement line",
      },
      30 * 60_000,
    );
    expect(match.kind).toBe("unmatched");
  });

  it("a notification whose reference is a JSON number beyond a double keeps every digit: it settles the in_doubt purchase it names", async () => {
    // The provider writes 20-digit references as JSON numbers (REFERENCE.md); JSON.parse would round them.
    env.sandbox.setOptions({ lies: { referenceAsNumber: true } });
    await buyLosingAnswers(["08031239005"]);
    const [debit] = env.sandbox.debits();
    expect(debit!.reference).toMatch(/^\d{20}$/);
    const config = testConfig(env.sandbox, { webhooks: { enabled: true, secret: "hook-secret" } });
    const logger = silentLogger();
    const deps = notificationDeps({
      db: env.test.database.db,
      reseller: env.reseller,
      config,
      logger,
      clock: systemClock,
    });
    const results: Promise<NotificationResult | undefined>[] = [];
    const server = await startHealthServer({
      host: "127.0.0.1",
      port: await freePort(),
      readiness: new Readiness(),
      logger,
      metrics: async () => ({ contentType: "text/plain", body: "" }),
      webhook: createWebhookReceiver({
        config: config.webhooks,
        database: () => env.test.database.db,
        secrets: ["hook-secret"],
        logger,
        onStored: (id) => results.push(processNotification(deps, id)),
      }),
    });
    try {
      const body = `{"status":"successful","data":{"reference":${debit!.reference},"amount":"${debit!.amount}","phone_number":"${debit!.phone_number}","date":"${debit!.at}"}}`;
      const answer = await fetch(`${server.url}/webhooks/reseller`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-signature": createHmac("sha256", "hook-secret").update(body).digest("hex"),
        },
        body,
      });
      expect(answer.status).toBe(200);
      await new Promise((resolve) => setImmediate(resolve));
      const [stored] = await rows<{ reference: string }>(
        env.test.database.db,
        sql`select reference from provider_notifications`,
      );
      expect(stored!.reference).toBe(debit!.reference);
      expect(await Promise.all(results)).toMatchObject([{ outcome: "settled" }]);
      expect(await ledger()).toMatchObject([{ state: "succeeded", reference: debit!.reference }]);
    } finally {
      await server.close();
    }
  });

  it("a notification whose phone shows none of its digits (0**********) names no phone: it settles no in_doubt purchase", async () => {
    await buyLosingAnswers(["08031239006"]);
    const [debit] = env.sandbox.debits();
    const { stored } = await storeNotice(env.test.database.db, "successful", {
      reference: debit!.reference,
      amount: debit!.amount,
      phone_number: "0**********",
      date: debit!.at,
    });
    const deps = depsThrough();
    const result = await processNotification(deps, stored.id);
    expect(result).toMatchObject({ outcome: "unmatched" });
    expect(result!.reason).toMatch(/no date or phone to match/);
    expect(await ledger()).toMatchObject([{ state: "in_doubt", reference: null }]);
  });

  it("a purchase answer naming a pruned purchase's reference is a reference clash, as before the prune: not settled by that old transaction's verify", async () => {
    // Last month's allowance for a phone, succeeded and since pruned; this month the provider answers the same
    // phone and plan with last month's reference (a cached answer), whose verify says success, same phone and amount.
    await insertPurchases(env.test.database.db, [purchase("08031239007", "last-month")], "test");
    await env.run();
    const [old] = await ledger();
    expect(old).toMatchObject({ state: "succeeded" });
    await rows(
      env.test.database.db,
      sql`update kv set value = jsonb_set(value, '{seq}', '1000000') where key = 'wallet'`,
    );
    expect(await prunePurchases(env.test.database, new Date())).toMatchObject({ purchases: 1 });

    proxy = await resellerProxy(env.sandbox.resellerUrl, (request, upstream) => {
      if (request.path !== "/public/api/data" || upstream.status !== 200) return undefined;
      const body = upstream.body as { data: { reference: string } };
      body.data.reference = old!.reference!;
      return { status: 200, body };
    });
    const cached = resellerFor({ resellerUrl: proxy.url, apiKey: env.sandbox.apiKey });
    try {
      await insertPurchases(env.test.database.db, [purchase("08031239007", "this-month")], "test");
      await env.run({ through: cached });
    } finally {
      await cached.close();
    }
    const [now] = await rows<{ state: string; reference: string | null; note: string | null }>(
      env.test.database.db,
      sql`select state, reference, note from purchases`,
    );
    expect(now).toMatchObject({ state: "unverified", reference: null });
    expect(now!.note).toMatch(/^reference_clash: /);
  });

  it("a statement whose header names a column twice is refused (exit 65), not read from the first of them", async () => {
    // An export with the amount charged and, further right, the amount after a fee, both headed "Amount".
    await insertPurchases(env.test.database.db, [purchase("08031239008")], "test");
    await env.run();
    const [debit] = env.sandbox.debits();
    const dir = mkdtempSync(join(tmpdir(), "topsync-proof-"));
    const statement = join(dir, "statement.csv");
    writeFileSync(
      statement,
      `Reference,Phone,Amount,Date,Status,Amount\n${debit!.reference},${debit!.phone_number},${debit!.amount},${debit!.at},successful,300.00\n`,
    );
    const file = writeConfigFile(env.sandbox, env.test.url).file;
    const out = await runCli(["-c", file, "purchases", "reconcile", "--statement", statement]);
    expect(out.code).toBe(65);
    expect(out.stderr).toContain('the header names the column "Amount" (for amount) twice');
  });

  it("a notification whose processing the database failed mid-way is processed again by the backlog, and settles its purchase", async () => {
    await buyLosingAnswers(["08031239009"]);
    const [debit] = env.sandbox.debits();
    // The database refuses the first event written from now on (a blip), then works again.
    await rows(
      env.test.database.db,
      sql.raw(`create sequence blip;
        create function blip_once() returns trigger language plpgsql as $$
          begin if nextval('blip') = 1 then raise exception 'database blip'; end if; return new; end $$;
        create trigger blip before insert on purchase_events for each row execute function blip_once();`),
    );
    const { stored } = await storeNotice(env.test.database.db, "successful", {
      reference: debit!.reference,
      amount: debit!.amount,
      phone_number: debit!.phone_number,
      date: debit!.at,
    });
    const deps = depsThrough();
    const backlog = new NotificationBacklog(deps);
    await backlog.process(stored.id);
    expect(await ledger()).toMatchObject([{ state: "in_doubt" }]);
    // A minute later the backlog's pass looks at what is still waiting.
    await rows(
      env.test.database.db,
      sql`update provider_notifications set received_at = received_at - interval '2 minutes'`,
    );
    await backlog.pass();
    expect(await ledger()).toMatchObject([{ state: "succeeded", reference: debit!.reference }]);
    const [after] = await rows<{ outcome: string }>(
      env.test.database.db,
      sql`select outcome from provider_notifications`,
    );
    expect(after).toMatchObject({ outcome: "settled" });
  });

  it("a signed notification with an amount beyond the ledger's columns is stored (amount unreadable), not refused with 500 for ever", async () => {
    const config = testConfig(env.sandbox, { webhooks: { enabled: true, secret: "hook-secret" } });
    const logger = silentLogger();
    const server = await startHealthServer({
      host: "127.0.0.1",
      port: await freePort(),
      readiness: new Readiness(),
      logger,
      metrics: async () => ({ contentType: "text/plain", body: "" }),
      webhook: createWebhookReceiver({
        config: config.webhooks,
        database: () => env.test.database.db,
        secrets: ["hook-secret"],
        logger,
        onStored: () => {},
      }),
    });
    try {
      const body = JSON.stringify({
        status: "successful",
        data: { reference: "HUGE-1", amount: "1000000000000000.00", phone_number: "0803****567" },
      });
      const answer = await fetch(`${server.url}/webhooks/reseller`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-signature": createHmac("sha256", "hook-secret").update(body).digest("hex"),
        },
        body,
      });
      expect(answer.status).toBe(200);
      const stored = await rows<{ reference: string; amount: string | null }>(
        env.test.database.db,
        sql`select reference, amount::text as amount from provider_notifications`,
      );
      expect(stored).toEqual([{ reference: "HUGE-1", amount: null }]);
    } finally {
      await server.close();
    }
  });
});
