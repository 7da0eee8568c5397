// A provider's answers are claims: a purchase charged above its listed price counts at what was
// charged and blocks its plan; a verify answer about another purchase, or a success that is not one, settles
// nothing. Over real HTTP against a lying sandbox, on PostgreSQL and PGlite.
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import { silentLogger } from "../../src/log/logger.js";
import { parseMoney } from "../../src/money.js";
import { executePurchases } from "../../src/purchases/executor.js";
import { insertPurchases, type NewPurchase } from "../../src/purchases/ledger.js";
import { resolvePurchase } from "../../src/purchases/resolve.js";
import type { ResellerClient } from "../../src/reseller/client.js";
import { type Sandbox, type SandboxOptions, startSandbox } from "../../src/sandbox/index.js";
import { resellerFor } from "../helpers/clients.js";
import { testConfig } from "../helpers/config.js";
import { DB_KINDS, openTestDatabase, type TestDatabase } from "../helpers/db.js";

const purchase = (phone: string, extra: Partial<NewPurchase> = {}): NewPurchase => ({
  request_key: `lie:${phone}`,
  source: "buy",
  network: "MTN",
  plan_id: "102", // listed at 305.00
  phone,
  ported: false,
  ...extra,
});

interface Row {
  phone: string;
  state: string;
  amount: string | null;
  charged_amount: string | null;
  refund_amount: string | null;
  note: string | null;
  reason: string | null;
}

describe.each(DB_KINDS)("a lying provider, on %s", (kind) => {
  let sandbox: Sandbox;
  let test: TestDatabase;
  let reseller: ResellerClient;

  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 3 });
  });
  afterAll(() => sandbox.close());
  beforeEach(async () => {
    test = await openTestDatabase(kind);
    reseller = resellerFor(sandbox);
  });
  afterEach(async () => {
    await reseller.close();
    await test.drop();
  });

  const ledger = () =>
    rows<Row>(
      test.database.db,
      sql`select phone, state, amount::text as amount, charged_amount::text as charged_amount,
            refund_amount::text as refund_amount, note, reason from purchases order by id`,
    );
  const committed = async () =>
    (
      await rows<{ c: string }>(
        test.database.db,
        sql`select coalesce(sum(committed), 0)::text as c from budget_days`,
      )
    )[0]!.c;

  async function run(
    options: Partial<SandboxOptions>,
    phones: string[],
    budget: Record<string, string> = {},
  ) {
    sandbox.reset(options);
    await insertPurchases(
      test.database.db,
      phones.map((p) => purchase(p)),
      "test",
    );
    const config = testConfig(sandbox, { budget });
    return executePurchases(
      { database: test.database, reseller, config, logger: silentLogger() },
      { concurrency: 1, retryWaitMs: 0 },
    );
  }

  it("an overcharge counts at what was charged, is flagged, and blocks the plan now and in later runs", async () => {
    const summary = await run({ overchargeFactor: 10 }, ["08031230001", "08031230002", "08031230003"]);
    const found = await ledger();
    expect(found[0]).toMatchObject({ state: "succeeded", amount: "305.00", charged_amount: "3050.00" });
    expect(found[0]!.note).toMatch(
      /^price_mismatch: the provider charged 3,?050\.00 for plan 102 listed at 305\.00/,
    );
    for (const row of found.slice(1)) {
      expect(row).toMatchObject({ state: "rejected", charged_amount: null });
      expect(row.reason).toMatch(
        /^price_mismatch: plan 102 was charged at 3,?050\.00 though listed at 305\.00/,
      );
    }
    expect(sandbox.debits()).toHaveLength(1);
    expect(await committed()).toBe("3050.00"); // the daily budget counts the charge, not the list
    expect(summary.committed.toFixed(2)).toBe("3050.00");

    // A later run, the provider honest again but its list unchanged: the plan stays blocked.
    await run({}, ["08031230004"]);
    const later = (await ledger()).find((r) => r.phone === "08031230004")!;
    expect(later.state).toBe("rejected");
    expect(later.reason).toMatch(/^price_mismatch/);
    expect(sandbox.debits()).toHaveLength(0); // reset cleared the first debit; nothing new was bought
  });

  it("the charged amount holds the daily budget: a second purchase that the list would allow is refused", async () => {
    // 2 × 305.00 fit a 700.00 limit by the list; the first charge of 366.00 (×1.2) leaves room for no other.
    await run({ overchargeFactor: 1.2 }, ["08031240001"], { daily_limit: "700.00" });
    sandbox.setOptions({ overchargeFactor: 1 });
    // The price_mismatch block is for this plan; another plan (103, 580.00) shows the budget at the charge.
    await insertPurchases(test.database.db, [purchase("08031240002", { plan_id: "101" })], "test");
    await executePurchases(
      {
        database: test.database,
        reseller,
        config: testConfig(sandbox, { budget: { daily_limit: "500.00" } }),
        logger: silentLogger(),
      },
      { concurrency: 1, retryWaitMs: 0 },
    );
    const second = (await ledger()).find((r) => r.phone === "08031240002")!;
    expect(second.state).toBe("rejected");
    expect(second.reason).toMatch(
      /^daily_budget: daily budget: 366(\.00)? committed today \+ 168(\.00)? > daily_limit 500/,
    );
  });

  it.each(["-305.00", "0.00"])(
    "a purchase answer naming a charge of %s frees no budget: the listed price counts",
    async (charge) => {
      // Two purchases of 305.00 fit a 610.00 limit; the provider debits 305.00 each whatever its answer says.
      const summary = await run({ lies: { amount: charge } }, ["08031270001", "08031270002"], {
        daily_limit: "610.00",
      });
      expect(summary.committed.toFixed(2)).toBe("610.00");
      expect(await committed()).toBe("610.00");
      // A later run the same day finds the budget spent.
      await insertPurchases(
        test.database.db,
        ["08031270003", "08031270004"].map((p) => purchase(p)),
        "test",
      );
      await executePurchases(
        {
          database: test.database,
          reseller,
          config: testConfig(sandbox, { budget: { daily_limit: "610.00" } }),
          logger: silentLogger(),
        },
        { concurrency: 1, retryWaitMs: 0 },
      );
      expect(sandbox.debits()).toHaveLength(2);
      const found = await ledger();
      for (const row of found.slice(0, 2))
        expect(row).toMatchObject({ state: "succeeded", amount: "305.00", charged_amount: null });
      for (const row of found.slice(2)) expect(row.reason).toMatch(/^daily_budget: /);
      const [event] = await rows<{ reason: string }>(
        test.database.db,
        sql`select reason from purchase_events where to_state = 'submitted' order by id limit 1`,
      );
      expect(event!.reason).toContain(
        `names a charge of ${charge}, which is not one: the listed price 305.00 counts`,
      );
    },
  );

  it.each([
    ["phone", "it names another phone number"],
    ["amount", "it names amount 1.00, not the 305.00 charged"],
    ["reference", "it names reference"],
    ["status_false", "the answer's status is false"],
    ["failed_huge_refund", "it names amount 99999.00, not the 305.00 charged"],
  ] as const)(
    "a verify answer that lies (%s) settles nothing: unverified with verify_mismatch",
    async (lie, words) => {
      await run({ verifyLie: lie }, ["08031250001"]);
      const [row] = await ledger();
      expect(row).toMatchObject({ state: "unverified", refund_amount: null, charged_amount: "305.00" });
      expect(row!.note).toMatch(/^verify_mismatch: /);
      expect(row!.note).toContain(words);
      const [{ next }] = (await rows<{ next: string | null }>(
        test.database.db,
        sql`select next_verify_at::text as next from purchases`,
      )) as [{ next: string | null }];
      expect(next).toBeNull(); // a person settles it; nothing is retried by itself
      expect(sandbox.debits()).toHaveLength(1);
    },
  );

  it("an honest verify answer with a masked phone settles the purchase", async () => {
    await run({}, ["08031260001"]);
    const [row] = await ledger();
    expect(row).toMatchObject({ state: "succeeded", charged_amount: "305.00", note: null });
  });
});

describe("a blocked plan", () => {
  const network = { id: "1", code: "1", name: "MTN", other_name: "mtn" };
  const plan = {
    id: "102",
    price: parseMoney("305.00"),
    size: "1GB",
    size_mb: 1024,
    name: "1GB",
    type: "CG",
  };
  const request = { network: "MTN", plan_id: "102", phone: "08031234567", ported: false };
  const catalogue = (price: string, charged: string) => ({
    networks: [network],
    plans: new Map([["1", [{ ...plan, price: parseMoney(price) }]]]),
    overcharged: new Map([["1:102", parseMoney(charged)]]),
  });

  it("is refused while its list shows less than it charges, and bought again once the list shows the charge", () => {
    expect(resolvePurchase(request, catalogue("305.00", "3050.00"))).toMatchObject({
      ok: false,
      code: "price_mismatch",
    });
    expect(resolvePurchase(request, catalogue("3050.00", "3050.00"))).toMatchObject({ ok: true });
    expect(
      resolvePurchase({ ...request, max_price: parseMoney("500.00") }, catalogue("3050.00", "3050.00")),
    ).toMatchObject({ ok: false, code: "price_above_max" });
  });
});
