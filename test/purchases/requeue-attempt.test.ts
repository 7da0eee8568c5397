// A purchase a person requeues after the provider failed it is a new attempt: nothing of the failed attempt's
// outcome (what it was charged, its refund, its provider status) is counted or shown as the new attempt's.
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import { silentLogger } from "../../src/log/logger.js";
import { executePurchases } from "../../src/purchases/executor.js";
import { insertPurchases, requeueByPerson } from "../../src/purchases/ledger.js";
import type { ResellerClient } from "../../src/reseller/client.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { resellerFor } from "../helpers/clients.js";
import { testConfig } from "../helpers/config.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";

describe("a requeued purchase, on postgres", () => {
  let sandbox: Sandbox;
  let test: TestDatabase;
  let reseller: ResellerClient;

  beforeAll(async () => {
    sandbox = await startSandbox({
      verifyLag: "reads",
      seed: 12,
      verifyNotFoundPolls: 0,
      verifyPendingPolls: 0,
    });
  });
  afterAll(() => sandbox.close());
  beforeEach(async () => {
    sandbox.reset({ verifyNotFoundPolls: 0, verifyPendingPolls: 0 });
    test = await openTestDatabase("postgres");
    reseller = resellerFor(sandbox);
  });
  afterEach(async () => {
    await reseller.close();
    await test.drop();
  });

  const run = () =>
    executePurchases(
      { database: test.database, reseller, config: testConfig(sandbox), logger: silentLogger() },
      { concurrency: 1, retryWaitMs: 0 },
    );
  const row = async () =>
    (
      await rows<{
        id: number;
        state: string;
        reference: string | null;
        amount: string | null;
        charged_amount: string | null;
        refund_amount: string | null;
        provider_status: string | null;
      }>(
        test.database.db,
        sql`select id::int as id, state, reference, amount::text as amount, charged_amount::text as charged_amount,
              refund_amount::text as refund_amount, provider_status from purchases`,
      )
    )[0]!;
  const committed = async () =>
    (
      await rows<{ committed: string }>(
        test.database.db,
        sql`select coalesce(sum(committed), 0)::text as committed from budget_days`,
      )
    )[0]!.committed;

  it("after a failed attempt charged 305.00 and refunded, a new attempt at 200.00: the budget counts 200.00, not 95.00, and no refund is shown", async () => {
    sandbox.setOptions({ failRate: 1 });
    await insertPurchases(
      test.database.db,
      [
        {
          request_key: "requeue:1",
          source: "buy",
          network: "MTN",
          plan_id: "102",
          phone: "08031239101",
          ported: false,
        },
      ],
      "test",
    );
    await run();
    const failed = await row();
    expect(failed).toMatchObject({ state: "failed", charged_amount: "305.00", refund_amount: "305.00" });
    expect(await committed()).toBe("0.00");

    await requeueByPerson(test.database.db, failed.id, { actor: "person", reason: "try again" });
    sandbox.setOptions({ failRate: 0, planPrices: { "102": "200.00" } });
    await run();
    const again = await row();
    expect(again).toMatchObject({ state: "succeeded", amount: "200.00", charged_amount: "200.00" });
    expect(again.reference).not.toBe(failed.reference);
    // The failed attempt's charge (305.00) was counted as what the new attempt took away from the budget.
    expect(await committed()).toBe("200.00");
    expect(again.refund_amount).toBeNull();
    expect(again.provider_status).not.toBe("failed");
  });
});
