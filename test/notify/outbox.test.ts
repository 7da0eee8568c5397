// The outbox writer: a notification is written by the statement (or transaction) of the ledger change that causes
// it, once per (trigger, subject, episode), and a change rolled back leaves none.
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import { silentLogger } from "../../src/log/logger.js";
import { parseMoney } from "../../src/money.js";
import { writeNotices } from "../../src/notify/outbox/write.js";
import { executePurchases } from "../../src/purchases/executor.js";
import { insertPurchases, markInDoubt, sweepDeadSubmitting } from "../../src/purchases/ledger.js";
import { recordWalletBalance } from "../../src/purchases/wallet.js";
import type { ResellerClient } from "../../src/reseller/client.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { resellerFor } from "../helpers/clients.js";
import { testConfig } from "../helpers/config.js";
import { DB_KINDS, openTestDatabase, type TestDatabase } from "../helpers/db.js";
import { mtnPhones, outbox, purchase } from "./helpers.js";

describe.each(DB_KINDS)("the notification outbox on %s", (kind) => {
  let sandbox: Sandbox;
  let test: TestDatabase;
  let reseller: ResellerClient;

  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 5 });
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

  async function submittingPurchase(phone: string): Promise<number> {
    await insertPurchases(test.database.db, [purchase(phone)], "test");
    const [row] = await rows<{ id: number }>(
      test.database.db,
      sql`update purchases set state = 'submitting', amount = 305, run_id = 'gone-run' where phone = ${phone} returning id`,
    );
    return Number(row!.id);
  }

  it("writes one in_doubt row per purchase that goes in_doubt, with the phone masked", async () => {
    sandbox.setFaults({ endpoints: { data: { rate500After: 1 } } });
    const phones = mtnPhones(3);
    await insertPurchases(
      test.database.db,
      phones.map((p) => purchase(p)),
      "test",
    );
    const summary = await executePurchases({
      database: test.database,
      reseller,
      config: testConfig(sandbox),
      logger: silentLogger(),
    });
    expect(summary.inDoubt).toBe(3);
    const found = await outbox(test.database, "in_doubt");
    expect(found).toHaveLength(3);
    expect(new Set(found.map((r) => r.subject)).size).toBe(3);
    for (const row of found) {
      expect(row.kind).toBe("open");
      expect(row.status).toBe("pending");
      expect(row.facts.phone).toMatch(/^0803\*{4}\d{3}$/);
      expect(row.facts.amount).toBe("305.00");
      expect(JSON.stringify(row.facts)).not.toMatch(/0803\d{7}/);
    }
  });

  it("writes nothing when the transition's transaction is rolled back", async () => {
    const id = await submittingPurchase(mtnPhones(1)[0]!);
    await expect(
      test.database.transaction(async (tx) => {
        expect(await markInDoubt(tx, id, { actor: "test", reason: "unknown outcome" })).toBeDefined();
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await outbox(test.database)).toEqual([]);
    await markInDoubt(test.database, id, { actor: "test", reason: "unknown outcome" });
    expect(await outbox(test.database, "in_doubt")).toHaveLength(1);
  });

  it("writes the in_doubt of a dead run's purchase in the sweep's statement", async () => {
    await submittingPurchase(mtnPhones(1, 50)[0]!);
    await rows(test.database.db, sql`update purchase_runs set heartbeat_at = now() - interval '1 hour'`);
    const { swept } = await sweepDeadSubmitting(test.database, "sweeper");
    expect(swept).toBe(1);
    const [row] = await outbox(test.database, "in_doubt");
    expect(row?.facts.reason).toMatch(/found in submitting/);
  });

  it("writes a resolved row when an in_doubt purchase is settled", async () => {
    const id = await submittingPurchase(mtnPhones(1, 70)[0]!);
    await markInDoubt(test.database, id, { actor: "test", reason: "500 after the debit" });
    const { resolveByPerson } = await import("../../src/purchases/ledger.js");
    await resolveByPerson(test.database.db, id, "succeeded", {}, { actor: "person", reason: "seen" });
    const found = await outbox(test.database, "in_doubt");
    expect(found.map((r) => r.kind)).toEqual(["open", "resolved"]);
    expect(found[1]!.facts.state).toBe("succeeded");
  });

  it("writes a notice whose text holds half an emoji or a NUL, with U+FFFD in their place", async () => {
    // A run's reason is cut at 300 UTF-16 units: an emoji at the cut left its first half, and a provider's text
    // can hold a NUL. JSON in PostgreSQL takes neither, so the insert failed and the run_failed (or the website
    // pass's notices, and with them the record of the pass) was lost.
    const reason = `${"x".repeat(299)}\u{1F600}`.slice(0, 300);
    const written = await writeNotices(test.database.db, [
      {
        trigger: "run_failed",
        subject: "run:r1",
        episode: "stopped",
        facts: { run: "r1", reason, detail: "a\u0000b", "k\u0000": "key with a NUL" },
      },
    ]);
    expect(written).toBe(1);
    const [row] = await outbox(test.database, "run_failed");
    expect(row?.facts.reason).toBe(`${"x".repeat(299)}\uFFFD`);
    expect(row?.facts.detail).toBe("a\uFFFDb");
    expect(row?.facts["k\uFFFD"]).toBe("key with a NUL");
  });

  it("writes each budget threshold once per budget day, 100 % when the budget refuses a purchase", async () => {
    const config = testConfig(sandbox, { budget: { daily_limit: "610.00" } });
    const phones = mtnPhones(3, 100);
    await insertPurchases(
      test.database.db,
      phones.map((p) => purchase(p)),
      "test",
    );
    const deps = { database: test.database, reseller, config, logger: silentLogger() };
    const summary = await executePurchases(deps, { concurrency: 1 });
    expect(summary.rejected).toBe(1);
    const found = await outbox(test.database, "budget");
    expect(found.map((r) => r.episode).sort()).toEqual(["100%", "50%", "75%", "90%"]);
    // Another run the same day adds nothing.
    await insertPurchases(test.database.db, [purchase(mtnPhones(1, 200)[0]!)], "test");
    await executePurchases(deps, { concurrency: 1 });
    expect(await outbox(test.database, "budget")).toHaveLength(4);
  });

  it("opens one wallet_low episode for a balance bouncing around the floor, and ends it above clear_above", async () => {
    const walletLow = { below: parseMoney("20000.00"), clear_above: parseMoney("25000.00") };
    const balances = ["30000.00", "19999.00", "20001.00", "19998.00", "24000.00", "19000.00", "26000.00"];
    let seq = 0;
    for (const balance of balances)
      await recordWalletBalance(test.database, parseMoney(balance), ++seq, new Date(), walletLow);
    let found = await outbox(test.database, "wallet_low");
    expect(found.map((r) => [r.kind, r.episode])).toEqual([
      ["open", "episode:1"],
      ["resolved", "resolved:episode:1"],
    ]);
    expect(found[0]!.facts.balance).toBe("19999.00");
    // An older answer's balance is not recorded, so it opens nothing; a new fall opens episode 2.
    await recordWalletBalance(test.database, parseMoney("100.00"), 1, new Date(), walletLow);
    await recordWalletBalance(test.database, parseMoney("15000.00"), ++seq, new Date(), walletLow);
    found = await outbox(test.database, "wallet_low");
    expect(found.map((r) => r.episode)).toEqual(["episode:1", "resolved:episode:1", "episode:2"]);
  });
});
