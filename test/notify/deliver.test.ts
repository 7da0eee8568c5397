// Delivery over real HTTP to the sandbox's receivers: grouping, one message per subscribed channel, a channel's
// 429 honoured, giving up after give_up_after, the webhook's signature, and nothing secret or personal in what
// goes out or in the log.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import type { Config } from "../../src/config/index.js";
import { rows } from "../../src/db/client.js";
import { createLogger, silentLogger } from "../../src/log/logger.js";
import { Notifier } from "../../src/notify/notifier.js";
import { writeNotices } from "../../src/notify/outbox/write.js";
import { executePurchases } from "../../src/purchases/executor.js";
import { insertPurchases, markInDoubt } from "../../src/purchases/ledger.js";
import { makeLedgerReport } from "../../src/report/ledger.js";
import { ledgerDocument } from "../../src/report/ledger-document.js";
import { renderReport } from "../../src/report/render.js";
import type { ResellerClient } from "../../src/reseller/client.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { resellerFor } from "../helpers/clients.js";
import { testConfig } from "../helpers/config.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";
import { waitFor } from "../helpers/wait.js";
import { HOOK_SECRET, mtnPhones, notificationsTo, purchase, SLACK_PATH, TG_TOKEN } from "./helpers.js";

let sandbox: Sandbox;
let test: TestDatabase;
let reseller: ResellerClient;
const notifiers: Notifier[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ verifyLag: "reads", seed: 9 });
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  sandbox.reset();
  sandbox.receivers.reset();
  test = await openTestDatabase("postgres");
  reseller = resellerFor(sandbox);
});
afterEach(async () => {
  for (const notifier of notifiers.splice(0)) await notifier.close();
  await reseller.close();
  await test.drop();
});

function configWith(extra: Record<string, unknown> = {}): Config {
  return testConfig(sandbox, { notifications: notificationsTo(sandbox, extra) });
}

function notifier(config: Config, logger = silentLogger(), claimer = "test") {
  const made = new Notifier({ database: test.database, config, logger, clock: systemClock, claimer });
  notifiers.push(made);
  return made;
}

/** Runs `notifier` rounds until `done` holds (the loop a daemon runs). */
async function deliverUntil(made: Notifier, what: string, done: () => boolean): Promise<void> {
  await waitFor(what, async () => {
    await made.round();
    return done();
  });
}

async function inDoubt(n: number, config: Config, start = 0): Promise<void> {
  sandbox.setFaults({ endpoints: { data: { rate500After: 1 } } });
  await insertPurchases(
    test.database.db,
    mtnPhones(n, start).map((p) => purchase(p)),
    "test",
  );
  const summary = await executePurchases({
    database: test.database,
    reseller,
    config,
    logger: silentLogger(),
  });
  expect(summary.inDoubt).toBe(n);
  sandbox.setFaults({ endpoints: {} });
}

describe("delivering notifications", () => {
  it("makes 200 in_doubt purchases of one run one message per subscribed channel", async () => {
    const config = configWith({ group_wait: "2s" });
    await inDoubt(200, config);
    const made = notifier(config);
    await deliverUntil(
      made,
      "the grouped message on Slack and the webhook",
      () =>
        sandbox.receivers.received("slack").length > 0 && sandbox.receivers.received("webhook").length > 0,
    );
    await made.flush(5000);
    expect(sandbox.receivers.received("slack")).toHaveLength(1);
    expect(sandbox.receivers.received("webhook")).toHaveLength(1);
    expect(sandbox.receivers.received("telegram")).toHaveLength(0);
    const slack = JSON.parse(sandbox.receivers.received("slack")[0]!.body) as {
      text: string;
      blocks: unknown[];
    };
    expect(slack.text).toMatch(/^200 purchases in_doubt, ₦61,000 at risk, oldest \d+ s$/);
    expect(JSON.stringify(slack.blocks)).toContain("… and 180 more");
    const hook = JSON.parse(sandbox.receivers.received("webhook")[0]!.body) as Record<string, unknown>;
    expect(hook).toMatchObject({
      type: "topsync.notification",
      trigger: "in_doubt",
      count: 200,
      total: "61000.00",
    });
    const [routed] = await rows<{ n: number }>(
      test.database.db,
      sql`select count(*)::int as n from notification_outbox where status = 'routed'`,
    );
    expect(routed?.n).toBe(200);
  });

  it("sends nothing for a transition that was rolled back", async () => {
    const config = configWith({ group_wait: "0s" });
    await insertPurchases(test.database.db, [purchase(mtnPhones(1, 300)[0]!)], "test");
    const [row] = await rows<{ id: number }>(
      test.database.db,
      sql`update purchases set state = 'submitting', amount = 305 returning id`,
    );
    await test.database
      .transaction(async (tx) => {
        await markInDoubt(tx, Number(row!.id), { actor: "test", reason: "unknown" });
        throw new Error("roll back");
      })
      .catch(() => {});
    const result = await notifier(config).flush(2000);
    expect(result).toEqual({ sent: 0, failed: 0, waiting: 0 });
    expect(sandbox.receivers.requests()).toEqual([]);
  });

  it("honours Slack's 429 Retry-After: delivered once, no request sooner than the delay", async () => {
    const config = configWith({ group_wait: "0s" });
    sandbox.receivers.setFaults([{ kind: "slack", status: 429, retryAfter: 2, times: 3 }]);
    await inDoubt(1, config, 400);
    const made = notifier(config);
    await deliverUntil(made, "the message on Slack", () => sandbox.receivers.received("slack").length > 0);
    const slack = sandbox.receivers.requests().filter((r) => r.kind === "slack");
    expect(slack.map((r) => r.status)).toEqual([429, 429, 429, 200]);
    for (let i = 1; i < slack.length; i++)
      expect(slack[i]!.at - slack[i - 1]!.at).toBeGreaterThanOrEqual(1990);
    expect(sandbox.receivers.received("webhook")).toHaveLength(1);
  });

  it("keeps a channel's answer holding a NUL: retried after the error, sent once, recorded as sent", async () => {
    // Before, recording such an answer failed (PostgreSQL's text holds no NUL): the delivery stayed `sending` and
    // the message went out again when its lease ran out.
    const config = configWith({ group_wait: "0s" });
    sandbox.receivers.setFaults([
      { kind: "slack", status: 500, answer: "internal\u0000error" },
      { kind: "slack", status: 200, answer: "ok\u0000" },
    ]);
    await inDoubt(1, config, 450);
    const made = notifier(config);
    await deliverUntil(made, "the message on Slack", () => sandbox.receivers.received("slack").length > 0);
    const slack = async () =>
      rows<{ status: string; answer: string | null }>(
        test.database.db,
        sql`select status, answer from notification_deliveries where channel = 'ops-slack'`,
      );
    await waitFor("the Slack delivery recorded as sent", async () => {
      await made.round();
      return (await slack()).every((d) => d.status === "sent");
    });
    for (let i = 0; i < 3; i++) await made.round();
    expect(
      sandbox.receivers
        .requests()
        .filter((r) => r.kind === "slack")
        .map((r) => r.status),
    ).toEqual([500, 200]);
    const [delivery] = await slack();
    expect(delivery?.answer).toContain("ok\uFFFD");
  });

  it("holds back the rest of a channel's claimed messages after a 429, and sends each once", async () => {
    const config = configWith({ group_wait: "0s", rules: [{ on: ["budget"], to: ["audit-hook"] }] });
    await writeNotices(
      test.database.db,
      Array.from({ length: 6 }, (_, i) => ({
        trigger: "budget" as const,
        subject: `budget_day:2026-01-0${i + 1}`,
        episode: "50%",
        facts: {
          day: `2026-01-0${i + 1}`,
          threshold: 50,
          limit: "1000.00",
          committed: "500.00",
          refused: false,
        },
      })),
    );
    sandbox.receivers.setFaults([{ kind: "webhook", status: 429, retryAfter: 1, times: 1 }]);
    const made = notifier(config);
    await deliverUntil(made, "every message", () => sandbox.receivers.received("webhook").length === 6);
    const hooks = sandbox.receivers.requests().filter((r) => r.kind === "webhook");
    expect(hooks[0]!.status).toBe(429);
    expect(hooks[1]!.at - hooks[0]!.at).toBeGreaterThanOrEqual(990);
    const days = sandbox.receivers
      .received("webhook")
      .map((r) => (JSON.parse(r.body) as { events: Array<{ facts: { day: string } }> }).events[0]!.facts.day);
    expect(new Set(days).size).toBe(6);
  });

  it("honours Telegram's retry_after and sends plain text to the chat", async () => {
    const config = configWith({
      group_wait: "0s",
      rules: [{ on: ["in_doubt"], to: ["ops-tg"] }],
    });
    sandbox.receivers.setFaults([{ kind: "telegram", status: 429, retryAfter: 1, times: 1 }]);
    await inDoubt(2, config, 500);
    const made = notifier(config);
    await deliverUntil(
      made,
      "the message on Telegram",
      () => sandbox.receivers.received("telegram").length > 0,
    );
    const tg = sandbox.receivers.requests().filter((r) => r.kind === "telegram");
    expect(tg.map((r) => r.status)).toEqual([429, 200]);
    expect(tg[1]!.at - tg[0]!.at).toBeGreaterThanOrEqual(990);
    expect(tg[1]!.path).toBe(`/bot${TG_TOKEN}/sendMessage`);
    const body = JSON.parse(tg[1]!.body) as { chat_id: string; text: string };
    expect(body.chat_id).toBe("-1001234");
    expect(body.text).toMatch(/^2 purchases in_doubt, ₦610 at risk/);
    expect(body.text).toMatch(
      /- #\d+ · MTN 1GB for 30 Days · 0803\*{4}\d{3} · ₦305 \(\d+ s ago\) — HTTP_SERVER_ERROR/,
    );
  });

  it("takes a 429 asking to wait past give_up_after (or a garbage wait) as given up, and holds the channel no longer", async () => {
    // A receiver's wait of 10^20 seconds, or Telegram's retry_after of 1e300, made a wait PostgreSQL's interval
    // cannot hold: recording the outcome failed, the delivery stayed `sending` and went out again each time its
    // lease ran out. A long but storable wait (ten years) held the whole channel that long: every later message to
    // it stayed pending, never sent nor given up.
    const config = configWith({
      group_wait: "0s",
      give_up_after: "2s",
      rules: [{ on: ["budget"], to: ["ops-slack", "ops-tg", "audit-hook"] }],
    });
    const budget = (day: string) => ({
      trigger: "budget" as const,
      subject: `budget_day:${day}`,
      episode: "50%",
      facts: { day, threshold: 50, limit: "1000.00", committed: "500.00", refused: false },
    });
    await writeNotices(test.database.db, [budget("2026-01-01")]);
    sandbox.receivers.setFaults([
      { kind: "slack", status: 429, retryAfter: 1e20, times: 1 },
      { kind: "webhook", status: 429, retryAfter: 315_360_000, times: 1 },
      {
        kind: "telegram",
        status: 429,
        answer: '{"ok":false,"error_code":429,"parameters":{"retry_after":1e300}}',
        times: 1,
      },
    ]);
    const made = notifier(config);
    const deliveries = () =>
      rows<{ channel: string; status: string; last_error: string | null }>(
        test.database.db,
        sql`select channel, status, last_error from notification_deliveries order by id`,
      );
    await waitFor("the first message given up on every channel", async () => {
      await made.round().catch(() => {});
      return (await deliveries()).every((d) => d.status === "failed");
    });
    for (const d of await deliveries())
      expect(d.last_error).toBe("rate limited (429): the channel asked to wait longer than give_up_after");
    await writeNotices(test.database.db, [budget("2026-01-02")]);
    await deliverUntil(
      made,
      "the second message on every channel",
      () => sandbox.receivers.received().length === 3,
    );
    expect(sandbox.receivers.requests().map((r) => r.status)).toEqual([429, 429, 429, 200, 200, 200]);
  });

  it("backs off from a channel that answers 429 with a wait of none, rather than trying again at once", async () => {
    // "Retry-After: 0" (or Telegram's retry_after 0, or a date gone by) was taken as it came: the message was due
    // again at once and the channel not held, so the daemon's loop — busy, so never sleeping — sent it again and
    // again to a receiver saying it was overloaded, as fast as the ledger answered, until give_up_after.
    const config = configWith({
      group_wait: "0s",
      rules: [{ on: ["budget"], to: ["audit-hook", "ops-tg"] }],
    });
    sandbox.receivers.setFaults([
      { kind: "webhook", status: 429, retryAfter: 0, times: 100 },
      { kind: "telegram", status: 429, retryAfter: 0, times: 100 },
    ]);
    await writeNotices(test.database.db, [
      {
        trigger: "budget" as const,
        subject: "budget_day:2026-01-09",
        episode: "50%",
        facts: { day: "2026-01-09", threshold: 50, limit: "1000.00", committed: "500.00", refused: false },
      },
    ]);
    const made = notifier(config);
    await made.round();
    expect(
      sandbox.receivers
        .requests()
        .map((r) => `${r.kind} ${r.status}`)
        .sort(),
    ).toEqual(["telegram 429", "webhook 429"]);
    const held = await rows<{ channel: string; status: string; later: boolean; channel_later: boolean }>(
      test.database.db,
      sql`select d.channel, d.status, d.next_attempt_at > now() + interval '250 milliseconds' as later,
            c.next_send_at > now() + interval '250 milliseconds' as channel_later
          from notification_deliveries d join notification_channels c on c.name = d.channel order by d.channel`,
    );
    expect(held).toEqual([
      { channel: "audit-hook", status: "pending", later: true, channel_later: true },
      { channel: "ops-tg", status: "pending", later: true, channel_later: true },
    ]);
  });

  it("marks a message failed after give_up_after and counts it", async () => {
    const config = configWith({
      group_wait: "0s",
      give_up_after: "1500ms",
      rules: [{ on: ["in_doubt"], to: ["audit-hook"] }],
    });
    sandbox.receivers.setFaults([{ kind: "webhook", status: 503, times: 1000 }]);
    await inDoubt(1, config, 600);
    const failed: string[] = [];
    const made = new Notifier({
      database: test.database,
      config,
      logger: silentLogger(),
      clock: systemClock,
      claimer: "test",
      observer: { sent: () => {}, failed: (channel, trigger) => failed.push(`${channel}:${trigger}`) },
    });
    notifiers.push(made);
    await deliverUntil(made, "the message to be given up", () => failed.length > 0);
    expect(failed).toEqual(["audit-hook:in_doubt"]);
    const [row] = await rows<{ status: string; last_error: string; attempts: number }>(
      test.database.db,
      sql`select status, last_error, attempts from notification_deliveries`,
    );
    expect(row).toMatchObject({ status: "failed", last_error: "the receiver answered 503" });
    expect(row!.attempts).toBeGreaterThanOrEqual(1);
    const report = await makeLedgerReport(test.database.db, {
      now: new Date(),
      since: new Date(Date.now() - 86_400_000),
      timeZone: "Africa/Lagos",
    });
    expect(report.notificationsFailed).toEqual([
      expect.objectContaining({
        channel: "audit-hook",
        trigger: "in_doubt",
        lastError: "the receiver answered 503",
      }),
    ]);
    const text = renderReport("text", {
      document: () => ledgerDocument(report, { showPhone: false }),
      json: () => ({}),
    });
    expect(text).toMatch(
      /Notifications not delivered[\s\S]*audit-hook +in_doubt +1 +\d+ +the receiver answered 503/,
    );
  });

  it("signs webhooks so that the README's snippet verifies them", async () => {
    const config = configWith({ group_wait: "0s" });
    await inDoubt(1, config, 700);
    await notifier(config).flush(5000);
    const [hook] = sandbox.receivers.received("webhook");
    const verify = await readmeVerifier();
    expect(verify(hook!.body, hook!.headers["x-topsync-signature"], HOOK_SECRET)).toBe(true);
    expect(verify(`${hook!.body} `, hook!.headers["x-topsync-signature"], HOOK_SECRET)).toBe(false);
    expect(verify(hook!.body, hook!.headers["x-topsync-signature"], "another secret")).toBe(false);
    const stale = hook!.headers["x-topsync-signature"]!.replace(/t=\d+/, "t=1000");
    expect(verify(hook!.body, stale, HOOK_SECRET)).toBe(false);
  });

  it("sends once when flushed twice", async () => {
    const config = configWith();
    await inDoubt(3, config, 800);
    expect((await notifier(config).flush(5000)).sent).toBe(2);
    expect((await notifier(config).flush(5000)).sent).toBe(0);
    expect(sandbox.receivers.received()).toHaveLength(2);
  });

  it("puts no full phone number, API key or channel secret in any message or log line", async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: "debug",
      pretty: false,
      destination: new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    });
    const config = configWith({
      group_wait: "0s",
      rules: [
        { on: ["in_doubt", "wallet_low", "budget", "run_failed"], to: ["ops-slack", "ops-tg", "audit-hook"] },
      ],
    });
    sandbox.receivers.setFaults([{ status: 500, times: 3 }]);
    await inDoubt(25, config, 900);
    const made = notifier(config, logger);
    await deliverUntil(made, "every channel's message", () => sandbox.receivers.received().length === 3);
    const sent = sandbox.receivers.requests().map((r) => `${r.body}\n${JSON.stringify(r.headers)}`);
    const everything = [...sent, ...lines].join("\n");
    expect(lines.length).toBeGreaterThan(0);
    for (const phone of mtnPhones(25, 900)) expect(everything).not.toContain(phone);
    expect(everything).not.toMatch(/0803\d{7}/);
    for (const secret of [sandbox.apiKey, sandbox.analyticsApiKey, HOOK_SECRET, TG_TOKEN, SLACK_PATH])
      expect(everything).not.toContain(secret);
  });
});

/** The verification snippet of README "Notifications", as a function. */
async function readmeVerifier(): Promise<
  (body: string, header: string | undefined, secret: string) => boolean
> {
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  const snippet = /```js\n\/\/ verify-topsync-signature\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!snippet) throw new Error("README has no verify-topsync-signature snippet");
  const file = join(mkdtempSync(join(tmpdir(), "topsync-verify-")), "verify.mjs");
  writeFileSync(file, snippet);
  const module = (await import(file)) as {
    verifyTopsyncSignature: (body: string, header: string | undefined, secret: string) => boolean;
  };
  return module.verifyTopsyncSignature;
}
