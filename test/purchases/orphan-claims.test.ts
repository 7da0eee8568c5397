// At a run's end, rows of the run left in `submitting` that none of its claims handed it (a claim statement
// whose answer was lost with its connection) go back to the queue; rows it did claim and send stay where they are.
import { sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import { returnUnclaimedSubmitting } from "../../src/purchases/ledger.js";
import { DB_KINDS, openTestDatabase, queueTestPurchases, type TestDatabase } from "../helpers/db.js";

const RUN = "6f1d0c8e-3a55-4b7e-9a57-0d2b8c1f4e21";
const OTHER_RUN = "0b3e6f2a-91c4-4d0e-8e1f-5a7c9d2b6e40";

describe.each(DB_KINDS)("rows claimed by a lost statement (%s)", (kind) => {
  let test: TestDatabase;
  let ids: number[];

  beforeEach(async () => {
    test = await openTestDatabase(kind);
    ids = await queueTestPurchases(test.database.db, 6, "o");
    // 0-3: this run's, in submitting; 4: another run's, in submitting; 5: this run's, already submitted.
    await test.database.db.execute(
      sql`update purchases set state = 'submitting', run_id = ${RUN}, attempts = 1 where id <= ${ids[3]}`,
    );
    await test.database.db.execute(
      sql`update purchases set state = 'submitting', run_id = ${OTHER_RUN}, attempts = 1 where id = ${ids[4]}`,
    );
    await test.database.db.execute(
      sql`update purchases set state = 'submitted', run_id = ${RUN}, attempts = 1 where id = ${ids[5]}`,
    );
  });
  afterEach(() => test.drop());

  it("queues again only the run's submitting rows it does not know, with the attempt given back", async () => {
    const known = new Set([ids[0]!, ids[2]!, ids[5]!, 999_999]);
    const moved = await returnUnclaimedSubmitting(test.database.db, RUN, known, {
      actor: "test",
      reason: "lost",
    });
    expect(moved).toBe(2);
    const found = await rows<{ id: number | string; state: string; attempts: number }>(
      test.database.db,
      sql`select id, state, attempts from purchases order by id`,
    );
    expect(found.map((row) => [row.state, row.attempts])).toEqual([
      ["submitting", 1],
      ["queued", 0],
      ["submitting", 1],
      ["queued", 0],
      ["submitting", 1],
      ["submitted", 1],
    ]);
    const events = await rows<{ purchase_id: number | string; reason: string }>(
      test.database.db,
      sql`select purchase_id, reason from purchase_events where to_state = 'queued' and from_state = 'submitting' order by purchase_id`,
    );
    expect(events.map((event) => [Number(event.purchase_id), event.reason])).toEqual([
      [ids[1], "lost"],
      [ids[3], "lost"],
    ]);
  });

  it("moves nothing when the run knows every row it left in submitting", async () => {
    const known = new Set(ids.slice(0, 4));
    expect(
      await returnUnclaimedSubmitting(test.database.db, RUN, known, { actor: "test", reason: "lost" }),
    ).toBe(0);
  });
});
