// A purchase a person requeues after the provider failed it is a new attempt: nothing of the failed attempt's
// outcome (what it was charged, its refund, its provider status) is counted or shown as the new attempt's.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import { insertPurchases, requeueByPerson } from "../../src/purchases/ledger.js";
import { sandboxLedger } from "../helpers/sandbox-ledger.js";

describe("a requeued purchase, on postgres", () => {
  const env = sandboxLedger(12);
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
        env.test.database.db,
        sql`select id::int as id, state, reference, amount::text as amount, charged_amount::text as charged_amount,
              refund_amount::text as refund_amount, provider_status from purchases`,
      )
    )[0]!;
  const committed = async () =>
    (
      await rows<{ committed: string }>(
        env.test.database.db,
        sql`select coalesce(sum(committed), 0)::text as committed from budget_days`,
      )
    )[0]!.committed;

  it("after a failed attempt charged 305.00 and refunded, a new attempt at 200.00: the budget counts 200.00, not 95.00, and no refund is shown", async () => {
    env.sandbox.setOptions({ failRate: 1 });
    await insertPurchases(
      env.test.database.db,
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
    await env.run();
    const failed = await row();
    expect(failed).toMatchObject({ state: "failed", charged_amount: "305.00", refund_amount: "305.00" });
    expect(await committed()).toBe("0.00");

    await requeueByPerson(env.test.database.db, failed.id, { actor: "person", reason: "try again" });
    env.sandbox.setOptions({ failRate: 0, planPrices: { "102": "200.00" } });
    await env.run();
    const again = await row();
    expect(again).toMatchObject({ state: "succeeded", amount: "200.00", charged_amount: "200.00" });
    expect(again.reference).not.toBe(failed.reference);
    // The failed attempt's charge (305.00) was counted as what the new attempt took away from the budget.
    expect(await committed()).toBe("200.00");
    expect(again.refund_amount).toBeNull();
    expect(again.provider_status).not.toBe("failed");
  });
});
