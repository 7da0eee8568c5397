// The counters and rollups the ledger's triggers keep (migration 0006) are exactly what counting the ledger
// says, whatever wrote it: racing runs with faults (failures, refunds, retries, in_doubt), a sweep of a dead run,
// people settling, requeueing and cancelling, rows written and deleted by hand. And `report` read from them says
// what the report read from the purchases themselves said, for any period and time zone.
import { type SQL, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, type Executor, openDatabase, rows } from "../../src/db/client.js";
import { migrate, migrationTags } from "../../src/db/migrate.js";
import { silentLogger } from "../../src/log/logger.js";
import { parseMoney } from "../../src/money.js";
import { executePurchases } from "../../src/purchases/executor.js";
import { budgetDay } from "../../src/purchases/guards.js";
import {
  cancelByPerson,
  insertPurchases,
  type NewPurchase,
  requeueByPerson,
  resolveByPerson,
  sweepDeadSubmitting,
} from "../../src/purchases/ledger.js";
import { readRollupState, sealLedgerRollups } from "../../src/purchases/rollups.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { readLedgerStats } from "../../src/server/ledger-stats.js";
import { resellerFor } from "../helpers/clients.js";
import { sandboxSettings, testConfig } from "../helpers/config.js";
import { createPostgresDatabase, DB_KINDS, openTestDatabase } from "../helpers/db.js";
import { expectReportEqualsTheLedger, expectSectionRollupsEqualTheirSums } from "../helpers/spend-counted.js";

const TIME_ZONE = "Africa/Lagos";
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const FAULTS = {
  seed: 41,
  endpoints: {
    data: {
      rate500Before: 0.02,
      rate500After: 0.03,
      rateResetAfter: 0.02,
      rateMalformedAfter: 0.02,
      rate429: 0.03,
      retryAfter: 0,
    },
    transaction: { rate500Before: 0.05 },
  },
};

function purchase(i: number): NewPurchase {
  const phone = `0803${String(3_000_000 + i)}`;
  if (i % 3 === 0)
    return {
      request_key: `job:staff:2026-01-01T08:00:00.000Z:${phone}`,
      source: "job",
      job_name: "staff",
      fire_time: new Date("2026-01-01T08:00:00Z"),
      network: "mtn",
      plan_id: "102",
      phone,
    };
  if (i % 11 === 0)
    return {
      request_key: `crm-${i}`,
      source: "intake",
      network: "GLO",
      plan_id: "203",
      phone: `0805${phone.slice(4)}`,
    };
  if (i % 17 === 0)
    return { request_key: `crm-${i}`, source: "intake", network: "MTN", plan_id: "102", phone: "0800" };
  return { request_key: `crm-${i}`, source: "intake", network: "MTN", plan_id: "102", phone };
}

describe.each(DB_KINDS)("the ledger's counters and rollups on %s", (kind) => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 12, failRate: 0.05, reverseRate: 0.03 });
  });
  afterAll(() => sandbox.close());

  it("equal a count of the ledger after racing runs, sweeps, settlements and edits by hand", {
    // The embedded database takes a minute or two here on a busy machine of two cores.
    timeout: 300_000,
  }, async () => {
    sandbox.setFaults(FAULTS);
    const test = await openTestDatabase(kind);
    // On PostgreSQL the second run has pools of its own, so the two runs write from different sessions (shards).
    const other = kind === "postgres" ? await openDatabase({ url: test.url }) : test.database;
    const reseller = resellerFor(sandbox, { concurrency: 16 });
    try {
      const db = test.database.db;
      const count = kind === "postgres" ? 600 : 240;
      await insertPurchases(
        db,
        Array.from({ length: count }, (_, i) => purchase(i)),
        "test",
      );
      const config = testConfig(sandbox, {
        reseller: { ...(sandboxSettings(sandbox).reseller as object), concurrency: 16 },
        budget: { daily_limit: String(305 * Math.floor(count * 0.7)) },
      });
      const run = (database: Database) =>
        executePurchases({ database, reseller, config, logger: silentLogger() }, { concurrency: 16 });
      // Days gone by, sealed; then, while the runs race, those days are changed again and again (late settlements,
      // notes, purchases added and deleted) and sealed again and again.
      await editByHand(db);
      expect(await sealLedgerRollups(db)).toBeGreaterThan(10);
      let running = true;
      let seals = 0;
      let edits = 0;
      const sealing = (async () => {
        while (running) {
          await sealLedgerRollups(db);
          seals++;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      const editing = (async () => {
        while (running) {
          await editSealedDays(other.db, edits++);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      const [a, b] = await Promise.all([run(test.database), run(other)]).finally(() => {
        running = false;
      });
      await Promise.all([sealing, editing]);
      expect(seals).toBeGreaterThan(1);
      expect(edits).toBeGreaterThan(1);
      expect(a.claimed + b.claimed).toBeGreaterThanOrEqual(count);
      sandbox.setFaults({ endpoints: {} });

      await sweepDeadRun(test.database);
      await settleByPeople(db);
      await editSealedDays(db, edits);

      // Read as they stand (some sealed days changed since), and again once sealed.
      await expectCountersEqualTheLedger(db);
      await expectReportsEqualTheLedger(db);
      await sealLedgerRollups(db);
      const { sealedUntil, dirty } = await readRollupState(db);
      expect(dirty.filter((day) => day < (sealedUntil ?? day))).toEqual([]); // days not sealed yet may stay marked
      await expectCountersEqualTheLedger(db);
      await expectReportsEqualTheLedger(db);
      const states = await rows<{ state: string }>(db, sql`select distinct state from purchases`);
      expect(states.map((s) => s.state)).toEqual(
        expect.arrayContaining(["succeeded", "failed", "rejected", "in_doubt", "cancelled", "queued"]),
      );
      if (kind === "postgres") {
        const [shards] = await rows<{ n: number }>(
          db,
          sql`select count(distinct shard)::int as n from purchase_state_counts`,
        );
        expect(shards?.n).toBeGreaterThan(1);
      }
    } finally {
      await reseller.close();
      if (other !== test.database) await other.close();
      await test.drop();
    }
  });
  it("are filled from the history a ledger already has when the migration runs", async () => {
    const created = kind === "postgres" ? await createPostgresDatabase() : undefined;
    const database = await openDatabase(created ? { url: created.url } : { pgliteDir: "memory://" });
    try {
      const db = database.db;
      // The database as the release before migration 0006 left it, with history in it.
      const tags = migrationTags();
      const before = tags.slice(0, tags.indexOf("0006_ledger_rollups"));
      await migrate(db, before);
      await rows(
        db,
        sql`insert into purchases (request_key, source, network, phone, state, network_id, amount,
          budget_day, submitted_at, settled_at, created_at)
        select 'k' || g, 'intake', 'MTN', '0803' || (5000000 + g), (array['queued', 'succeeded', 'rejected'])[1 + g % 3],
          '1', 305, '2026-01-02', now() - g * interval '5 hours', now() - g * interval '5 hours' + g * interval '1 second',
          now() - g * interval '5 hours'
        from generate_series(1, 60) g`,
      );
      await editByHand(db);
      expect(await migrate(db)).toEqual(tags.slice(before.length));
      await expectCountersEqualTheLedger(db);
      const [kept] = await rows<{ n: number }>(
        db,
        sql`select sum(purchases)::int as n from purchase_state_counts where state = 'succeeded'`,
      );
      expect(kept?.n).toBeGreaterThan(20);
    } finally {
      await database.close();
      await created?.drop();
    }
  });
});

/** Rows a run that has stopped left in `submitting` (its lock free, its heartbeat old): the sweep finds them. */
async function sweepDeadRun(database: Database): Promise<void> {
  const db = database.db;
  await db.execute(
    sql`insert into purchase_runs (run_id, actor, heartbeat_at) values ('dead', 'test', now() - interval '1 minute')`,
  );
  await insertPurchases(
    db,
    Array.from({ length: 12 }, (_, i) => ({ ...purchase(900 + i), request_key: `dead-${i}` })),
    "test",
  );
  await db.execute(sql`update purchases set state = 'submitting', run_id = 'dead', amount = 305, network_id = '1',
    budget_day = ${budgetDay(new Date(), TIME_ZONE)}::date where request_key like 'dead-%'`);
  const swept = await sweepDeadSubmitting(database, "test");
  expect(swept.swept).toBe(12);
}

/** People settle in_doubt purchases either way, requeue failed ones and cancel some of those. */
async function settleByPeople(db: Executor): Promise<void> {
  const doubts = await rows<{ id: number }>(
    db,
    sql`select id from purchases where state = 'in_doubt' order by id`,
  );
  for (const [i, { id }] of doubts.slice(0, 8).entries())
    await resolveByPerson(
      db as never,
      Number(id),
      i % 2 ? "failed" : "succeeded",
      { reference: `REF-${id}` },
      {
        actor: "person",
      },
    );
  const failed = await rows<{ id: number }>(
    db,
    sql`select id from purchases where state = 'failed' order by id limit 6`,
  );
  for (const [i, { id }] of failed.entries()) {
    await requeueByPerson(db as never, Number(id), { actor: "person" });
    if (i % 2) await cancelByPerson(db as never, Number(id), { actor: "person" });
  }
}

/** A late writer on days gone by: settles, notes, adds and deletes purchases of sealed days (round `n`). */
async function editSealedDays(db: Executor, n: number): Promise<void> {
  const run = (statement: SQL) => rows(db, statement);
  await run(sql`update purchases set state = case state when 'in_doubt' then 'succeeded' else 'in_doubt' end,
      settled_at = case state when 'in_doubt' then submitted_at + ${n + 1} * interval '1 second' end
    where request_key in ('old-' || ${(n % 40) * 2 + 1}, 'old-' || ${(n % 40) * 2 + 2})
      and state in ('in_doubt', 'succeeded')`);
  await run(sql`update purchases set note = case when note is null then 'verify_mismatch: late' end
    where request_key = 'old-' || ${(n % 80) + 1}`);
  await run(sql`insert into purchases (request_key, source, network, network_id, phone, amount, state, budget_day,
      submitted_at, settled_at, created_at)
    values ('late-' || ${n}, 'buy', 'MTN', '1', '08035550000', 305, 'succeeded', (now() - interval '9 days')::date,
      now() - interval '9 days', now() - interval '9 days' + interval '2 seconds', now() - interval '9 days')`);
  if (n % 3 === 0) await run(sql`delete from purchases where request_key = 'late-' || ${n - 1}`);
}

/** The report read from the rollups says what the report read from the purchases says, for any period and zone. */
async function expectReportsEqualTheLedger(db: Executor): Promise<void> {
  const now = new Date();
  for (const zone of [TIME_ZONE, "Asia/Kathmandu", "America/St_Johns"]) {
    for (const since of [
      new Date(now.getTime() - 3 * DAY - 5 * HOUR),
      new Date(Math.floor(now.getTime() / DAY) * DAY - 4 * DAY), // a UTC midnight: no partial first day
      new Date(now.getTime() - 26 * HOUR),
      new Date(now.getTime() - HOUR),
      new Date(now.getTime() - 9 * DAY - HOUR),
      new Date(now.getTime() - 400 * DAY),
    ]) {
      await expectReportEqualsTheLedger(db, since, zone);
    }
  }
}

/** What a person with psql (or another release) might do: notes, backdated and deleted rows, schedule fires. */
async function editByHand(db: Executor): Promise<void> {
  const run = (statement: SQL) => rows(db, statement);
  await run(
    sql`update purchases set note = 'price_mismatch: charged 400.00' where id in (select id from purchases order by id limit 3)`,
  );
  await run(
    sql`update purchases set note = 'verify_mismatch: phone' where id in (select id from purchases order by id desc limit 2)`,
  );
  // Sent purchases with and without a budget day, settled and not, spread over days gone by.
  await run(sql`insert into purchases (request_key, source, job_name, network, network_id, phone, amount, charged_amount,
      state, budget_day, submitted_at, settled_at, provider_message, refund_amount, created_at)
    select 'old-' || g, case when g % 2 = 0 then 'job' else 'buy' end, case when g % 2 = 0 then 'promo' end,
      case when g % 3 = 0 then 'glo' else 'MTN' end, case when g % 5 = 0 then null else '1' end,
      '0803' || (4000000 + g), 305, case when g % 7 = 0 then 310 end,
      (array['succeeded', 'failed', 'unverified', 'in_doubt', 'submitted'])[1 + g % 5],
      case when g % 4 = 0 then null else (now() - g * interval '7 hours')::date end,
      now() - g * interval '7 hours' - (g % 60) * interval '1 minute',
      now() - g * interval '7 hours' + g * interval '130 milliseconds',
      case when g % 5 = 1 then 'Insufficient stock for 0803 400 ' || lpad(g::text, 4, '0') end,
      case when g % 10 = 1 then 305 end, now() - g * interval '7 hours' - interval '2 minutes'
    from generate_series(1, 80) g`);
  await run(sql`delete from purchases where request_key in ('old-3', 'old-4', 'old-5')`);
  await run(sql`insert into schedule_fires (fire_key, job_name, fire_time, status)
    select 'job:staff:' || g, case when g % 2 = 0 then 'staff' else 'promo' end, now() - g * interval '1 hour', 'running'
    from generate_series(1, 10) g`);
  await run(sql`update schedule_fires set status = case when fire_key like '%3' then 'failed' else 'done' end
    where fire_key <> 'job:staff:10'`);
  await run(sql`delete from schedule_fires where fire_key in ('job:staff:1', 'job:staff:2')`);
}

async function expectCountersEqualTheLedger(db: Executor): Promise<void> {
  const kept = await rows(
    db,
    sql`select state, note_kind, sum(purchases)::int as n from purchase_state_counts
        group by 1, 2 having sum(purchases) <> 0 order by 1, 2`,
  );
  const counted = await rows<{ state: string; note_kind: string; n: number }>(
    db,
    sql`select state, coalesce(left(split_part(note, ':', 1), 100), '') as note_kind, count(*)::int as n
        from purchases group by 1, 2 order by 1, 2`,
  );
  expect(kept).toEqual(counted);
  const stats = await readLedgerStats(db, new Date(), TIME_ZONE);
  const byState = await rows<{ state: string; n: number }>(
    db,
    sql`select state, count(*)::int as n from purchases group by state`,
  );
  for (const { state, n } of byState) expect(stats.byState[state]).toBe(n);
  const noted = (kind: string) =>
    counted.filter((c) => c.note_kind === kind).reduce((sum, c) => sum + c.n, 0);
  expect(stats.noted).toEqual({
    price_mismatch: noted("price_mismatch"),
    verify_mismatch: noted("verify_mismatch"),
    reference_clash: noted("reference_clash"),
    reversed: noted("reversed"),
    delivered_after_failure: noted("delivered_after_failure"),
    earlier_attempt_delivered: noted("earlier_attempt_delivered"),
  });

  // The sealed days the rollups hold (those not changed since): what filing their purchases gives.
  const sealed = sql`bucket < (select (value ->> 'sealed_until')::timestamptz from kv where key = 'rollups')
    and topsync_utc_day(bucket) not in (select day from purchase_rollup_dirty)`;
  const keptRollups = await rows(
    db,
    sql`select bucket, state, budget_day, network_id, network, job, message_md5, message, purchases::int as n,
          amount::text as amount, refunded::text as refunded
        from purchase_rollups where ${sealed} order by 1, 2, 3, 4, 5, 6, 7`,
  );
  const countedRollups = await rows(
    db,
    sql`select * from (
          select f.bucket, f.state, f.budget_day, f.network_id, f.network, f.job, f.message_md5, min(f.message) as message,
            count(*)::int as n, sum(f.amount)::text as amount, sum(f.refunded)::text as refunded
          from purchases p cross join lateral topsync_purchase_fact(p) f group by 1, 2, 3, 4, 5, 6, 7
        ) f where ${sealed} order by 1, 2, 3, 4, 5, 6, 7`,
  );
  expect(keptRollups.map(money)).toEqual(countedRollups.map(money));
  const keptLatency = await rows(
    db,
    sql`select bucket, latency_bucket, purchases::int as n, micros::text as micros
        from purchase_latency_rollups where ${sealed} order by 1, 2`,
  );
  const countedLatency = await rows(
    db,
    sql`select * from (
          select topsync_utc_day(p.submitted_at) as bucket, topsync_latency_bucket(f.latency_micros) as latency_bucket,
            count(*)::int as n, sum(f.latency_micros)::text as micros
          from purchases p cross join lateral topsync_purchase_fact(p) f where f.latency_micros is not null
          group by 1, 2
        ) l where ${sealed} order by 1, 2`,
  );
  expect(keptLatency).toEqual(countedLatency);
  await expectSectionRollupsEqualTheirSums(db);
  const keptFires = await rows(
    db,
    sql`select job_name, status, fires::int as n from schedule_fire_counts where fires <> 0 order by 1, 2`,
  );
  const countedFires = await rows(
    db,
    sql`select job_name, status, count(*)::int as n from schedule_fires group by 1, 2 order by 1, 2`,
  );
  expect(keptFires).toEqual(countedFires);
}

function money(row: unknown) {
  const r = row as Record<string, unknown>;
  return {
    ...r,
    amount: parseMoney(String(r.amount)).toFixed(2),
    refunded: parseMoney(String(r.refunded)).toFixed(2),
  };
}
