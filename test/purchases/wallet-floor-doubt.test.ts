// The wallet floor counts a purchase that may have been charged (in_doubt: sent, its answer lost) as spent until it
// is settled, as the daily budget does: the last reported balance may not include it, and the provider may well have
// taken the money. A purchase settled as bought keeps counting until a balance reported after its settlement.
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import { silentLogger } from "../../src/log/logger.js";
import { resolveAsPerson } from "../../src/purchases/by-person.js";
import { executePurchases } from "../../src/purchases/executor.js";
import { insertPurchases, type PurchaseRow } from "../../src/purchases/ledger.js";
import { readGuardStart } from "../../src/purchases/wallet.js";
import type { ResellerClient } from "../../src/reseller/client.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { resellerFor } from "../helpers/clients.js";
import { testConfig } from "../helpers/config.js";
import { DB_KINDS, openTestDatabase, type TestDatabase } from "../helpers/db.js";

const FLOOR = "100.00";

describe.each(DB_KINDS)("the wallet floor and purchases that may have been charged (%s)", (kind) => {
  let sandbox: Sandbox;
  let test: TestDatabase;
  let reseller: ResellerClient;

  beforeAll(async () => {
    sandbox = await startSandbox({ seed: 21 });
  });
  afterAll(() => sandbox.close());
  beforeEach(async () => {
    // 1,000.00 in the wallet; plan 102 costs 305.00: after two purchases 390.00 is left, after three 85.00.
    sandbox.reset({ walletBalance: "1000.00" });
    test = await openTestDatabase(kind);
    reseller = resellerFor(sandbox);
  });
  afterEach(async () => {
    await reseller.close();
    await test.drop();
  });

  async function buy(phone: string): Promise<void> {
    await insertPurchases(
      test.database.db,
      [{ request_key: `t:${phone}`, source: "buy", network: "MTN", plan_id: "102", phone, ported: false }],
      "test",
    );
    await executePurchases({
      database: test.database,
      reseller,
      config: testConfig(sandbox, { budget: { min_wallet_balance: FLOOR } }),
      logger: silentLogger(),
    });
  }

  async function purchase(phone: string): Promise<PurchaseRow> {
    const [row] = await rows<PurchaseRow>(
      test.database.db,
      sql`select * from purchases where phone = ${phone}`,
    );
    return row!;
  }

  /** A bought (balance 695.00 reported), then B sent and debited with its answer lost (in_doubt). */
  async function boughtThenLost(): Promise<void> {
    await buy("08031000001");
    expect(sandbox.wallet()).toBe("695.00");
    sandbox.setFaults({ endpoints: { data: { rateResetAfter: 1 } } });
    await buy("08031000002");
    sandbox.setFaults({ endpoints: {} });
    expect((await purchase("08031000002")).state).toBe("in_doubt");
    expect(sandbox.wallet()).toBe("390.00");
  }

  it("refuses a purchase that would take the wallet below the floor if the in_doubt one was charged", async () => {
    await boughtThenLost();
    // The last reported balance is 695.00 (A's answer); B may have been charged 305.00 (it was).
    expect((await readGuardStart(test.database.db, [])).inFlight.toFixed(2)).toBe("305.00");
    await buy("08031000003");
    const third = await purchase("08031000003");
    expect(third.state).toBe("rejected");
    expect(third.reason).toMatch(/^wallet_floor: /);
    expect(sandbox.debits()).toHaveLength(2);
    expect(Number(sandbox.wallet())).toBeGreaterThanOrEqual(Number(FLOOR));
  });

  it("keeps counting an in_doubt purchase a person settles as bought until a later balance is reported", async () => {
    await boughtThenLost();
    const lost = await purchase("08031000002");
    const settled = await resolveAsPerson(test.database.db, lost, "succeeded", undefined, {
      actor: "ada",
      reason: "the provider's dashboard shows it delivered",
    });
    expect(settled.ok).toBe(true);
    // The balance on record (695.00) was reported before the settlement: it does not include B.
    expect((await readGuardStart(test.database.db, [])).inFlight.toFixed(2)).toBe("305.00");
    await buy("08031000003");
    expect((await purchase("08031000003")).state).toBe("rejected");
    expect(sandbox.debits()).toHaveLength(2);
  });

  it("stops counting an in_doubt purchase a person settles as failed", async () => {
    await boughtThenLost();
    // The provider refunds B; a person records it as failed: nothing of it is spent.
    sandbox.setOptions({ walletBalance: "695.00" });
    const lost = await purchase("08031000002");
    const settled = await resolveAsPerson(test.database.db, lost, "failed", undefined, {
      actor: "ada",
      reason: "refunded",
    });
    expect(settled.ok).toBe(true);
    expect((await readGuardStart(test.database.db, [])).inFlight.toFixed(2)).toBe("0.00");
    await buy("08031000003");
    expect((await purchase("08031000003")).state).not.toBe("rejected");
    expect(sandbox.debits()).toHaveLength(3);
    expect(sandbox.wallet()).toBe("390.00");
  });
});
