// The report over months of ledger: each section read from its narrower rollup (days, groups, failures, latency
// months) says what counting the purchases says, for periods that hold whole months and parts of months, before and
// after days of those months change (the changed days read from the purchases until sealed again).
import { type SQL, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Executor, rows } from "../../src/db/client.js";
import { sealLedgerRollups } from "../../src/purchases/rollups.js";
import { DB_KINDS, openTestDatabase, type TestDatabase } from "../helpers/db.js";
import { expectReportEqualsTheLedger, expectSectionRollupsEqualTheirSums } from "../helpers/spend-counted.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ZONES = ["Africa/Lagos", "Asia/Kathmandu", "America/St_Johns"];

describe.each(DB_KINDS)("the report's section rollups on %s", (kind) => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await openTestDatabase(kind);
  });
  afterAll(() => test.drop());

  it("say what the purchases say over whole months, parts of months and changed days", {
    timeout: 120_000,
  }, async () => {
    const db = test.database.db;
    await writeMonthsOfPurchases(db);
    expect(await sealLedgerRollups(db)).toBeGreaterThan(100);
    await expectSectionRollupsEqualTheirSums(db);
    const [months] = await rows<{ n: number }>(
      db,
      sql`select count(distinct month)::int as n from purchase_latency_month_rollups`,
    );
    expect(months?.n).toBeGreaterThanOrEqual(4);
    await expectReportsEqualTheLedger(db);

    // Days in the middle of whole months change: read from the purchases (and their months per day) until sealed.
    await changeDaysGoneBy(db);
    const [dirty] = await rows<{ n: number }>(db, sql`select count(*)::int as n from purchase_rollup_dirty`);
    expect(dirty?.n).toBeGreaterThan(1);
    await expectReportsEqualTheLedger(db);
    await sealLedgerRollups(db);
    await expectSectionRollupsEqualTheirSums(db);
    await expectReportsEqualTheLedger(db);
  });
});

/** Periods from a few days to all of the ledger, starting at midnights, mid-month and mid-day, in three zones. */
async function expectReportsEqualTheLedger(db: Executor): Promise<void> {
  const now = Date.now();
  const midnight = Math.floor(now / DAY) * DAY;
  const starts = [
    now - 140 * DAY,
    now - 95 * DAY - 7 * HOUR,
    Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth() - 2, 1), // a month's first midnight
    midnight - 61 * DAY,
    now - 40 * DAY - 3 * HOUR,
    now - 7 * DAY,
  ];
  for (const zone of ZONES)
    for (const since of starts) await expectReportEqualsTheLedger(db, new Date(since), zone);
}

/**
 * 2,400 purchases over 130 days: every state, with and without a budget day, networks asked in either case, jobs
 * and the other sources, failures whose messages carry phone numbers, refunds, and latencies over a wide range.
 */
async function writeMonthsOfPurchases(db: Executor): Promise<void> {
  await rows(
    db,
    sql`insert into purchases (request_key, source, job_name, network, network_id, phone, amount, charged_amount,
        state, budget_day, submitted_at, settled_at, provider_message, reason, refund_amount, created_at)
      select 'm-' || g, (array['job', 'intake', 'buy'])[1 + g % 3], case when g % 3 = 0 then 'job-' || g % 4 end,
        case when g % 5 = 0 then 'glo' else 'MTN' end, case when g % 7 = 0 then null else '1' end,
        '0803' || (4000000 + g), 100 + g % 9 * 50, case when g % 11 = 0 then 333.33 end, s.state,
        case when s.sent and g % 4 <> 0 then (now() - g * interval '78 minutes' + interval '1 hour')::date end,
        case when s.sent then now() - g * interval '78 minutes' end,
        case when s.state in ('succeeded', 'failed') then now() - g * interval '78 minutes' + (g % 97) * interval '417 milliseconds' end,
        case when s.state = 'failed' and g % 2 = 0 then 'No stock for 0803 400 ' || lpad((g % 10000)::text, 4, '0') end,
        case when s.state in ('failed', 'rejected') then 'guard ' || g % 3 end,
        case when s.state = 'failed' and g % 3 = 0 then 100 end,
        now() - g * interval '78 minutes' - interval '1 minute'
      from generate_series(1, 2400) g
      cross join lateral (
        select st as state, st in ('submitting', 'submitted', 'succeeded', 'failed', 'in_doubt', 'unverified') as sent
        from (select (array['succeeded', 'succeeded', 'succeeded', 'failed', 'rejected', 'unverified', 'in_doubt',
          'queued', 'cancelled', 'submitted', 'succeeded'])[1 + g % 11] as st) s
      ) s`,
  );
}

/**
 * Late writers on days gone by (yesterday's or the day before's, and days of whole months): settlements, a failure,
 * a deleted and a backdated purchase.
 */
async function changeDaysGoneBy(db: Executor): Promise<void> {
  const run = (statement: SQL) => rows(db, statement);
  await run(sql`update purchases set state = 'succeeded', settled_at = submitted_at + interval '3 seconds'
    where request_key in ('m-16', 'm-21', 'm-1200', 'm-1205', 'm-1800') and state in ('in_doubt', 'unverified', 'submitted')`);
  await run(sql`update purchases set state = 'failed', provider_message = 'Reversed for 0803 123 4567',
      refund_amount = amount
    where request_key in ('m-1500', 'm-2000')`);
  await run(sql`delete from purchases where request_key in ('m-1300', 'm-1301')`);
  await run(sql`insert into purchases (request_key, source, network, network_id, phone, amount, state, budget_day,
      submitted_at, settled_at, created_at)
    values ('late', 'buy', 'MTN', '1', '08035550000', 305, 'succeeded', (now() - interval '70 days')::date,
      now() - interval '70 days', now() - interval '70 days' + interval '2 seconds', now() - interval '70 days')`);
}
