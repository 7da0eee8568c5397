// The triggers beyond a purchase's own: budget thresholds, wallet_low's hysteresis, a run stopped, skipped fires,
// website passes, unmatched provider notifications, the digest; and episodes that repeat or resolve.
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import type { Config } from "../../src/config/index.js";
import { rows } from "../../src/db/client.js";
import { silentLogger } from "../../src/log/logger.js";
import { parseMoney } from "../../src/money.js";
import { Notifier } from "../../src/notify/notifier.js";
import { writeRepeats } from "../../src/notify/repeat.js";
import { executePurchases } from "../../src/purchases/executor.js";
import { recordSkippedFires } from "../../src/purchases/fire-ledger.js";
import { insertPurchases, resolveByPerson } from "../../src/purchases/ledger.js";
import { recordWalletBalance } from "../../src/purchases/wallet.js";
import type { ResellerClient } from "../../src/reseller/client.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { reconcile, reconcileDeps } from "../../src/websites/reconcile.js";
import { analyticsFor, resellerFor } from "../helpers/clients.js";
import { testConfig } from "../helpers/config.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";
import { waitFor } from "../helpers/wait.js";
import { mtnPhones, outbox, purchase } from "./helpers.js";

let sandbox: Sandbox;
let test: TestDatabase;
let reseller: ResellerClient;
const notifiers: Notifier[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ verifyLag: "reads", seed: 13 });
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

/** Every trigger to one webhook (its JSON is easy to read back), and to Slack for a second rule when asked. */
function configWith(
  notifications: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): Config {
  return testConfig(sandbox, {
    notifications: {
      channels: {
        hook: { type: "webhook", url: `${sandbox.receivers.url}/hooks/all`, secret: "hook-secret-value" },
        slack: {
          type: "slack",
          url: `${sandbox.receivers.url}/slack/T000/B000/resolvedtokenabcdef`,
          pace: "0s",
        },
      },
      rules: [
        {
          on: [
            "in_doubt",
            "run_failed",
            "budget",
            "wallet_low",
            "missed_fire",
            "website_drift",
            "website_apply_failed",
            "mass_delete_refused",
            "notification_unmatched",
          ],
          to: ["hook"],
        },
        { on: ["in_doubt"], to: ["slack"], send_resolved: true },
      ],
      group_wait: "0s",
      ...notifications,
    },
    ...extra,
  });
}

function notifier(config: Config): Notifier {
  const made = new Notifier({
    database: test.database,
    config,
    logger: silentLogger(),
    clock: systemClock,
    claimer: "t",
  });
  notifiers.push(made);
  return made;
}

interface Hooked {
  trigger: string;
  kind: string;
  count: number;
  headline: string;
  text: string;
  events: Array<{ facts: Record<string, unknown> }>;
}

function hooked(): Hooked[] {
  return sandbox.receivers.received("webhook").map((r) => JSON.parse(r.body) as Hooked);
}

async function buy(config: Config, n: number, start: number, options = {}) {
  await insertPurchases(
    test.database.db,
    mtnPhones(n, start).map((p) => purchase(p)),
    "test",
  );
  return executePurchases({ database: test.database, reseller, config, logger: silentLogger() }, options);
}

describe("the triggers", () => {
  it("tells budget thresholds 50 and 100 as two messages, once per budget day", async () => {
    const config = configWith({ budget_thresholds: [50, 100] }, { budget: { daily_limit: "610.00" } });
    await buy(config, 3, 0, { concurrency: 1 });
    await buy(config, 1, 10, { concurrency: 1 });
    expect((await notifier(config).flush(5000)).sent).toBe(2);
    const told = hooked();
    expect(told.map((m) => m.headline)).toEqual([
      expect.stringMatching(/^Daily budget past 50% on \d{4}-\d{2}-\d{2}: ₦(305|610) of ₦610$/),
      expect.stringMatching(/^Daily budget spent on \d{4}-\d{2}-\d{2}: ₦610 of ₦610$/),
    ]);
  });

  it("tells a wallet balance bouncing around the floor once, and again only after it cleared", async () => {
    const config = configWith({ wallet_low: { below: "20000.00", clear_above: "25000.00" } });
    const walletLow = config.notifications.wallet_low!;
    let seq = 0;
    for (const balance of [
      "19990.00",
      "20010.00",
      "19980.00",
      "20500.00",
      "19000.00",
      "24999.00",
      "19900.00",
    ])
      await recordWalletBalance(test.database, parseMoney(balance), ++seq, new Date(), walletLow);
    expect((await notifier(config).flush(5000)).sent).toBe(1);
    expect(hooked().map((m) => m.headline)).toEqual(["Wallet low: ₦19,990, below ₦20,000"]);
    await recordWalletBalance(test.database, parseMoney("26000.00"), ++seq, new Date(), walletLow);
    await recordWalletBalance(test.database, parseMoney("18000.00"), ++seq, new Date(), walletLow);
    await notifier(config).flush(5000);
    expect(hooked().map((m) => m.headline)).toEqual([
      "Wallet low: ₦19,990, below ₦20,000",
      "Wallet low: ₦18,000, below ₦20,000",
    ]);
  });

  it("tells a run stopped by a 401", async () => {
    const wrongKey = configWith(
      {},
      {
        reseller: {
          base_url: sandbox.resellerUrl,
          api_key: "wrong-key-0001",
          timeout: "2s",
          rate_limit: 10_000,
        },
      },
    );
    const badReseller = resellerFor({ resellerUrl: sandbox.resellerUrl, apiKey: "wrong-key-0001" });
    await insertPurchases(test.database.db, [purchase(mtnPhones(1, 20)[0]!)], "test");
    await expect(
      executePurchases({
        database: test.database,
        reseller: badReseller,
        config: wrongKey,
        logger: silentLogger(),
      }),
    ).rejects.toThrow();
    await badReseller.close();
    await notifier(wrongKey).flush(5000);
    const [told] = hooked();
    expect(told?.trigger).toBe("run_failed");
    expect(told?.headline).toMatch(/^A purchase run stopped: .*401/);
    expect(JSON.stringify(told)).not.toContain("wrong-key-0001");
  });

  it("tells skipped fires, grouped", async () => {
    const config = configWith();
    const fires = [0, 1, 2].map((i) => {
      const fireTime = new Date(Date.UTC(2026, 0, 1, 8 + i));
      return {
        key: `job:staff:${fireTime.toISOString()}`,
        job: "staff",
        fireTime,
        reason: "downtime beyond catch_up",
      };
    });
    expect(await recordSkippedFires(test.database.db, fires, "test")).toBe(3);
    expect(await recordSkippedFires(test.database.db, fires, "test")).toBe(0);
    await notifier(config).flush(5000);
    const [told] = hooked();
    expect(told).toMatchObject({ trigger: "missed_fire", count: 3, headline: "3 job fires skipped" });
    expect(told?.text).toContain(
      "job staff: fire 2026-01-01T08:00:00+00:00 skipped — downtime beyond catch_up",
    );
  });

  it("tells website drift once however many passes find it, failed applies and refused deletes", async () => {
    const analytics = analyticsFor(sandbox);
    try {
      const observe = configWith(
        {},
        { websites: { mode: "observe", items: [{ domain: "a.example" }, { domain: "b.example" }] } },
      );
      const deps = reconcileDeps(observe, analytics, test.database.db);
      await reconcile(deps, { mode: "observe" });
      await notifier(observe).flush(5000);
      await reconcile(deps, { mode: "observe" });
      await notifier(observe).flush(5000);
      expect(hooked().map((m) => m.headline)).toEqual(["Website drift: 2 to create"]);
      expect(hooked()[0]!.text).toContain("create a.example");

      sandbox.setFaults({ endpoints: { "websites.create": { rate500Before: 1 } } });
      await reconcile(deps, { mode: "apply" });
      sandbox.setFaults({ endpoints: {} });
      await notifier(observe).flush(5000);
      expect(hooked()[1]).toMatchObject({
        trigger: "website_apply_failed",
        headline: "Website pass: 2 websites failed to apply",
      });

      sandbox.seedWebsites([{ domain: "old.example" }]);
      await rows(
        test.database.db,
        sql`insert into website_ownership (domain, origin) values ('old.example', 'created')`,
      );
      const empty = configWith({}, { websites: { mode: "observe", prune: true, items: [] } });
      await reconcile(reconcileDeps(empty, analytics, test.database.db), { mode: "observe" });
      await notifier(empty).flush(5000);
      expect(hooked().map((m) => m.trigger)).toContain("mass_delete_refused");
      expect(hooked().find((m) => m.trigger === "mass_delete_refused")?.headline).toMatch(
        /^Website deletes refused: refusing the delete: websites.items is empty/,
      );
    } finally {
      await analytics.close();
    }
  });

  it("tells a provider notification still unmatched once verification would have settled its purchase", async () => {
    const config = configWith(
      {},
      { verification: { initial_delay: "5ms", timeout: "1s", max_interval: "20ms", horizon: "72h" } },
    );
    await rows(
      test.database.db,
      sql`insert into provider_notifications (body_sha256, reference, status, phone, amount, body, outcome, reason, processed_at, received_at)
          values ('a', 'REF-UNKNOWN-1', 'success', '08031112222', 305, '{}', 'unmatched', 'no purchase carries this reference', now(), now()),
                 ('b', 'REF-LATER-2', 'success', '08031113333', 305, '{}', 'unmatched', 'no purchase carries this reference', now(), now())`,
    );
    const made = notifier(config);
    await waitFor("the unmatched notifications to be told", async () => {
      await made.flush(1000);
      return hooked().length > 0;
    });
    const [told] = hooked();
    expect(told).toMatchObject({ trigger: "notification_unmatched", count: 2 });
    expect(told?.headline).toBe("2 provider notifications matched no purchase, ₦610");
    expect(told?.text).toContain("reference REF-UNKNOWN-1, ₦305, phone 0803****222");
    expect(JSON.stringify(told)).not.toMatch(/0803111\d{4}/);
    await made.flush(1000);
    expect(hooked()).toHaveLength(1);
  });

  it("repeats an in_doubt episode still open after `repeat`, and tells its resolution where the rule asks", async () => {
    sandbox.setFaults({ endpoints: { data: { rate500After: 1 } } });
    const config = configWith({ repeat: "1s" });
    await buy(config, 1, 30);
    sandbox.setFaults({ endpoints: {} });
    const made = notifier(config);
    await made.flush(5000);
    expect(sandbox.receivers.received("slack")).toHaveLength(1);
    await waitFor("the repeat", async () => {
      await made.flush(1000);
      return hooked().length >= 2;
    });
    expect(hooked()[1]!.headline).toMatch(/^Still open: 1 purchase in_doubt, ₦305 at risk$/);
    const [row] = await rows<{ id: number }>(test.database.db, sql`select id from purchases`);
    await resolveByPerson(
      test.database.db,
      Number(row!.id),
      "failed",
      {},
      { actor: "person", reason: "not on the dashboard" },
    );
    await made.flush(5000);
    const slack = sandbox.receivers
      .received("slack")
      .map((r) => (JSON.parse(r.body) as { text: string }).text);
    expect(slack.at(-1)).toBe("1 in_doubt purchase resolved, ₦305");
    expect(hooked().map((m) => m.kind)).not.toContain("resolved");
    // Resolved, the episode is not repeated however late it is.
    expect(await writeRepeats(test.database.db, 1)).toBe(0);
  });

  it("writes the digest once per fire of its schedule, with the day's money and open problems", async () => {
    const config = configWith(
      { digest: { schedule: "* * * * *", to: ["hook"] } },
      { budget: { daily_limit: "1000.00" } },
    );
    await buy(config, 2, 40);
    const made = notifier(config);
    await made.flush(5000);
    await made.flush(5000);
    const digests = hooked().filter((m) => m.trigger === "digest");
    expect(digests).toHaveLength(1);
    expect(digests[0]!.text).toMatch(/spent today: ₦610 of ₦1,000 \(61%\)/);
    expect(digests[0]!.text).toMatch(/in_doubt: 0, unverified: 0/);
    expect(digests[0]!.text).toMatch(/alive: t at /);
    expect(await outbox(test.database, "digest")).toHaveLength(1);
  });
});
