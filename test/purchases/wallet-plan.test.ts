// The claim's wallet check sums what the last reported balance cannot include yet: the few answers numbered after
// it. PostgreSQL plans `answer_seq > seq` without knowing `seq`; the check must still read those answers through
// their index, not the whole ledger (a plan made on a small ledger is kept by the session, and was a table scan at
// every claim of a run).
import { sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import { UNREFLECTED, WALLET_KEY } from "../../src/purchases/wallet.js";
import { DB_KINDS, openTestDatabase, queueTestPurchases, type TestDatabase } from "../helpers/db.js";

describe.each(DB_KINDS)("the wallet check's plan (%s)", (kind) => {
  let test: TestDatabase;

  beforeEach(async () => {
    test = await openTestDatabase(kind);
    await queueTestPurchases(test.database.db, 2000, "w");
    // Half of them answered, in order, as a run leaves them; the balance reported with the 990th answer.
    await test.database.db.execute(
      sql`update purchases set state = 'submitted', amount = 300, answer_seq = nextval('purchase_answer_seq')
          where id % 2 = 0`,
    );
    await test.database.db.execute(
      sql`insert into kv (key, value) values (${WALLET_KEY}, '{"balance": "1000.00", "seq": 990}'::jsonb)
          on conflict (key) do update set value = excluded.value`,
    );
  });
  afterEach(() => test.drop());

  it("reads the answers after the balance by their index", async () => {
    const statement = sql`select ${UNREFLECTED}::text as in_flight from kv k where k.key = ${WALLET_KEY}`;
    const plan = await rows<{ "QUERY PLAN": string }>(test.database.db, sql`explain ${statement}`);
    const text = plan.map((line) => line["QUERY PLAN"]).join("\n");
    expect(text).toContain("purchases_answer_seq");
    expect(text).not.toMatch(/Seq Scan on purchases/);
    const [sum] = await rows<{ in_flight: string }>(test.database.db, statement);
    // Answers 991 to 1000, 300.00 each.
    expect(sum?.in_flight).toBe("3000.00");
  });
});
