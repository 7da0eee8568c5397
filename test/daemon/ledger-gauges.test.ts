// The ledger gauges the dashboard draws beside the budget: the queued purchases due before today's budget day
// ends and the most they may spend, and how long the oldest in_doubt purchase has waited. On both databases.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readLedgerStats } from "../../src/server/ledger-stats.js";
import { DB_KINDS, openTestDatabase, type TestDatabase } from "../helpers/db.js";

// 10:00 in Lagos (UTC+1): the budget day ends at 23:00 UTC.
const NOW = new Date("2026-03-10T09:00:00Z");

describe.each(DB_KINDS)("ledger gauges on %s", (kind) => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await openTestDatabase(kind);
    const row = (key: string, state: string, notBefore: string, maxPrice: string | null, updated: string) =>
      test.database.db.execute(
        sql`insert into purchases (request_key, source, network, phone, state, not_before, max_price, updated_at)
            values (${key}, 'buy', 'mtn', '08031234567', ${state}, ${notBefore}::timestamptz, ${maxPrice}::numeric,
                    ${updated}::timestamptz)`,
      );
    await row("buy:a", "queued", "2026-03-10T08:00:00Z", "300.00", "2026-03-10T08:00:00Z");
    await row("buy:b", "queued", "2026-03-10T22:59:00Z", "150.50", "2026-03-10T08:00:00Z");
    await row("buy:c", "queued", "2026-03-10T12:00:00Z", null, "2026-03-10T08:00:00Z");
    // Due after the budget day ends: tomorrow's.
    await row("buy:d", "queued", "2026-03-10T23:00:00Z", "999.00", "2026-03-10T08:00:00Z");
    await row("buy:e", "in_doubt", "2026-03-09T08:00:00Z", "100.00", "2026-03-10T08:30:00Z");
    await row("buy:f", "in_doubt", "2026-03-09T08:00:00Z", "100.00", "2026-03-10T08:50:00Z");
    await row("buy:g", "succeeded", "2026-03-09T08:00:00Z", "100.00", "2026-03-01T08:00:00Z");
  });
  afterAll(() => test.drop());

  it("count the queue due today, the most it may spend, and the oldest in_doubt's wait", async () => {
    const stats = await readLedgerStats(test.database.db, NOW, "Africa/Lagos");
    expect(stats.queuedToday).toEqual({ purchases: 3, maxSpend: "450.50", withoutMaxPrice: 1 });
    expect(stats.inDoubtOldestSeconds).toBe(30 * 60);
  });

  it("say 0 when nothing is queued or in_doubt", async () => {
    const stats = await readLedgerStats(test.database.db, new Date("2026-03-12T09:00:00Z"), "Africa/Lagos");
    expect(stats.queuedToday.purchases).toBe(4);
    await test.database.db.execute(
      sql`update purchases set state = 'cancelled' where state in ('queued', 'in_doubt')`,
    );
    const none = await readLedgerStats(test.database.db, NOW, "Africa/Lagos");
    expect(none.queuedToday).toEqual({ purchases: 0, maxSpend: "0", withoutMaxPrice: 0 });
    expect(none.inDoubtOldestSeconds).toBe(0);
  });
});
