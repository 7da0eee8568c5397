// The approval gate weighs a run of any size a page at a time: a run of more rows than one page is held as one plan
// whose recorded digest is the digest of its recorded items (made by the database, page by page), every priced row
// held at its planned price, and the rows the claim rejects let through to be rejected with their reasons.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/client.js";
import { type PurchasePlan, planDigest } from "../../src/plans/document.js";
import { GATE_PAGE } from "../../src/plans/gate.js";
import { insertPurchases } from "../../src/purchases/ledger.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { SERVER_URL } from "../helpers/db.js";
import { approverKey, type Ledger, openLedgerFor } from "./helpers.js";

describe("the approval gate over more rows than one page", { timeout: 300_000 }, () => {
  let sandbox: Sandbox;
  let ledger: Ledger;

  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 28 });
    ledger = await openLedgerFor("postgres", sandbox, {});
    const { publicKey } = await approverKey(ledger.dir, "ada");
    ledger.rewrite({
      approvals: {
        rules: [{ above: "500.00", approvals: 1 }],
        approvers: { ada: publicKey },
      },
    });
    await ledger.cli(["migrate"]);
  });
  afterAll(async () => {
    await sandbox.close();
    await ledger.drop();
  });

  it("holds them all as one plan whose digest is its items', each at its planned price; refused rows go to the claim", async () => {
    const count = 2 * GATE_PAGE + 7;
    const url = (await ledger.query<{ url: string }>(sql`select current_database() as url`))[0]!.url;
    const database = await openDatabase({
      url: `${SERVER_URL}/${url}`,
      maxConnections: 1,
    });
    try {
      const phone = (n: number) => `0803${String(5_000_000 + n)}`;
      for (let i = 0; i < count; i += 5000)
        await insertPurchases(
          database.db,
          Array.from({ length: Math.min(5000, count - i) }, (_, k) => ({
            request_key: `pages:${String(i + k).padStart(6, "0")}`,
            source: "intake",
            network: "MTN",
            plan_id: "102",
            phone: phone(i + k),
            ported: false,
          })),
          "test",
        );
      // A plan the catalogue does not have: the claim rejects it, the gate does not weigh it.
      await insertPurchases(
        database.db,
        [
          {
            request_key: "pages:unknown-plan",
            source: "intake",
            network: "MTN",
            plan_id: "999",
            phone: phone(count),
            ported: false,
          },
        ],
        "test",
      );
    } finally {
      await database.close();
    }

    const run = await ledger.cli(["purchases", "run"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`held for approval: ${count} purchases for ${(305 * count).toFixed(2)}`);
    expect(sandbox.debits()).toHaveLength(0);

    const [plan] = await ledger.query<{
      id: string;
      digest: string;
      items: number;
      total: string;
      document: PurchasePlan | string;
    }>(sql`select id, digest, items, total::text as total, document from saved_plans where origin = 'held'`);
    const document = (
      typeof plan!.document === "string" ? JSON.parse(plan!.document) : plan!.document
    ) as PurchasePlan;
    expect(plan).toMatchObject({ items: count, total: (305 * count).toFixed(2) });
    expect(document.items).toHaveLength(count);
    expect(document).toMatchObject({
      plan_id: plan!.id,
      kind: "purchases",
      total: plan!.total,
      rejected: [],
    });
    expect(planDigest(document)).toBe(plan!.digest);
    expect(document.digest).toBe(plan!.digest);
    expect(document.items[0]).toMatchObject({ request_key: "pages:000000", price: "305.00", plan_id: "102" });

    const states = await ledger.query<{
      state: string;
      approval: string;
      max_price: string | null;
      n: number;
    }>(
      sql`select state, split_part(approval, ':', 1) as approval, max_price::text as max_price, count(*)::int as n
          from purchases group by 1, 2, 3 order by 1`,
    );
    expect(states).toEqual([
      { state: "held", approval: "plan", max_price: "305.00", n: count },
      { state: "rejected", approval: "run", max_price: null, n: 1 },
    ]);
  });
});
