// A seal beside a writer of a day already marked: the writer's change is either in the rollup the seal writes or
// keeps the day marked, never neither (migration 0013). Before it, a day had one mark: a writer that found the day
// marked added none, and a seal that took the older mark and read the purchases before the writer committed left the
// day sealed, unmarked, without the change (the ledger counters' race test caught it once under load). Two sessions
// of PostgreSQL, the writer's transaction held open across the seal; the embedded database has one session, so the
// race cannot happen there.
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import { readRollupState, sealLedgerRollups } from "../../src/purchases/rollups.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";
import { expectReportEqualsTheLedger } from "../helpers/spend-counted.js";

const DAY = 86_400_000;

describe("a seal beside a writer of a marked day, on postgres", () => {
  let test: TestDatabase;
  let writer: postgres.Sql;
  beforeAll(async () => {
    test = await openTestDatabase("postgres");
    writer = postgres(test.url, { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    await writer.end();
    await test.drop();
  });

  it("leaves the writer's change in the rollup or the day marked, and the report equal to the ledger", async () => {
    const db = test.database.db;
    // Ten purchases five days ago, all succeeded; the days sealed.
    await rows(
      db,
      sql`insert into purchases (request_key, source, network, network_id, phone, amount, state, budget_day,
          submitted_at, settled_at, created_at)
        select 'old-' || g, 'buy', 'MTN', '1', '0803' || (4000000 + g), 305, 'succeeded',
          (now() - interval '5 days')::date, now() - interval '5 days', now() - interval '5 days' + interval '2 seconds',
          now() - interval '5 days' - interval '1 minute'
        from generate_series(1, 10) g`,
    );
    expect(await sealLedgerRollups(db)).toBeGreaterThan(0);
    const [marked] = await rows<{ day: string }>(
      db,
      sql`select topsync_utc_day(submitted_at)::text as day from purchases where request_key = 'old-1'`,
    );
    const day = new Date(marked?.day ?? "");

    // A late change marks the day (committed).
    await rows(db, sql`update purchases set note = 'verify_mismatch: late' where request_key = 'old-1'`);
    expect((await readRollupState(db)).dirty).toEqual([day]);

    // A writer changes another purchase of that day and has not committed when the seal reads the marks and the
    // purchases.
    const session = await writer.reserve();
    try {
      await session`begin`;
      await session`update purchases set state = 'in_doubt', settled_at = null where request_key = 'old-2'`;
      await sealLedgerRollups(db);
      await session`commit`;
    } finally {
      session.release();
    }

    // The writer's change is either in the rollup of its day or the day is still marked: the report, which reads a
    // marked day from the purchases, says what the ledger says.
    const { dirty } = await readRollupState(db);
    const [kept] = await rows<{ n: number }>(
      db,
      sql`select coalesce(sum(purchases), 0)::int as n from purchase_rollups
        where state = 'in_doubt' and bucket = ${day.toISOString()}::timestamptz`,
    );
    expect(dirty.length === 1 || kept?.n === 1).toBe(true);
    expect(dirty).toEqual([day]); // the seal could not read the change: the day stays marked
    const since = new Date(day.getTime() - DAY);
    await expectReportEqualsTheLedger(db, since, "UTC");
    await expectReportEqualsTheLedger(db, since, "Africa/Lagos");

    // The next seal takes the writer's mark and writes the day with its change.
    await sealLedgerRollups(db);
    expect((await readRollupState(db)).dirty).toEqual([]);
    const [after] = await rows<{ n: number }>(
      db,
      sql`select coalesce(sum(purchases), 0)::int as n from purchase_rollups
        where state = 'in_doubt' and bucket = ${day.toISOString()}::timestamptz`,
    );
    expect(after?.n).toBe(1);
    await expectReportEqualsTheLedger(db, since, "UTC");
  });

  it("keeps one day once in the marks it reports, however many transactions marked it", async () => {
    const db = test.database.db;
    for (const key of ["old-3", "old-4", "old-5"])
      await rows(db, sql`update purchases set note = 'price_mismatch: late' where request_key = ${key}`);
    const [count] = await rows<{ n: number }>(db, sql`select count(*)::int as n from purchase_rollup_dirty`);
    expect(count?.n).toBe(3);
    const { dirty } = await readRollupState(db);
    expect(dirty).toHaveLength(1);
    const since = new Date(dirty[0]!.getTime() - DAY);
    await expectReportEqualsTheLedger(db, since, "UTC");
    await sealLedgerRollups(db);
    expect((await readRollupState(db)).dirty).toEqual([]);
  });
});
