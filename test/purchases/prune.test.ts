// Retention: `purchases prune` takes settled purchases older than the cutoff and their events (archived first when
// asked), and nothing the money rules stand on: purchases not settled, purchases the last wallet balance does not
// include yet, budget days, and the request keys, which still refuse a second purchase however it is asked for.
import { execFile, spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDatabase, rows } from "../../src/db/client.js";
import { readSpendHistory } from "../../src/purchases/history-read.js";
import {
  flagReferenceClash,
  insertFireRows,
  insertPurchases,
  resolveByPerson,
} from "../../src/purchases/ledger.js";
import { findPurchase } from "../../src/purchases/ledger-read.js";
import { existingKeys } from "../../src/purchases/projection-read.js";
import { countPrunable, PRUNING_LOCK, pruneBatch, prunePurchases } from "../../src/purchases/prune.js";
import { openPruneArchive } from "../../src/purchases/prune-archive.js";
import { ingestIntake } from "../../src/purchases/sources/intake.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { readLedgerStats } from "../../src/server/ledger-stats.js";
import { CLI, type CliResult, ROOT, readableStderr, runCli } from "../helpers/cli.js";
import { writeConfigFile } from "../helpers/config.js";
import { createPostgresDatabase, DB_KINDS, openTestDatabase } from "../helpers/db.js";

const DAY = 86_400_000;

/**
 * A ledger with history: settled purchases 100 days old (pruned), and what must stay — purchases of every state not
 * settled, one answered after the last reported balance, and settled ones of last week. Returns their keys.
 */
async function seedHistory(db: Db) {
  await rows(
    db,
    sql`insert into purchases (request_key, source, job_name, network, network_id, phone, amount, state,
      budget_day, answer_seq, submitted_at, settled_at, created_at, updated_at, reference)
    select k.key, 'job', 'staff', 'MTN', '1', '08031234567', 305, k.state, (now() - k.age)::date, k.seq,
      now() - k.age, case when k.state in ('succeeded', 'failed', 'rejected', 'cancelled') then now() - k.age + interval '3 seconds' end,
      now() - k.age - interval '1 minute', now() - k.age + interval '3 seconds', 'REF-' || k.key
    from (values
      ('job:staff:old-ok:08031234567', 'succeeded', interval '100 days', 10),
      ('old-failed', 'failed', interval '100 days', 11),
      ('old-rejected', 'rejected', interval '100 days', null),
      ('old-cancelled', 'cancelled', interval '100 days', null),
      ('old-in-doubt', 'in_doubt', interval '100 days', null),
      ('old-unverified', 'unverified', interval '100 days', 12),
      ('old-submitted', 'submitted', interval '100 days', 13),
      ('old-queued', 'queued', interval '100 days', null),
      ('old-unreflected', 'succeeded', interval '100 days', 99),
      ('recent-ok', 'succeeded', interval '7 days', 14)
    ) as k(key, state, age, seq)`,
  );
  await rows(
    db,
    sql`insert into purchase_events (purchase_id, actor, from_state, to_state, reason, response)
    select p.id, 'test', e.f, e.t, e.reason, e.response::json from purchases p
    cross join (values (1, null, 'queued', 'accepted', null),
      (2, 'queued', 'submitting', 'attempt 1', null),
      (3, 'submitting', 'submitted', 'answered', '{"status":true,"data":{"reference":"R","amount":"305.00"}}')) e(n, f, t, reason, response)
    order by p.id, e.n`,
  );
  // The provider's last reported balance came with answer 50: answer 99 is not in it yet.
  await rows(
    db,
    sql`insert into kv (key, value) values ('wallet', '{"balance": "5000.00", "seq": 50}'::jsonb)`,
  );
  await rows(
    db,
    sql`insert into budget_days (day, committed)
    select budget_day, sum(amount) from purchases where state in ('succeeded', 'unverified', 'in_doubt', 'submitted')
    group by budget_day`,
  );
}

/** A database the CLI migrated (as `topsync migrate`), then seeded with `seedHistory`. */
async function migrateAndSeed(configFile: string, url: string): Promise<void> {
  expect((await runCli(["-c", configFile, "migrate"])).code).toBe(0);
  const database = await openDatabase({ url, maxConnections: 1 });
  try {
    await seedHistory(database.db);
  } finally {
    await database.close();
  }
}

const PRUNED = ["job:staff:old-ok:08031234567", "old-failed", "old-rejected", "old-cancelled"];

describe.each(DB_KINDS)("purchases prune on %s", (kind) => {
  it("takes settled purchases before the cutoff with their events, archived line by line, and nothing else", async () => {
    const test = await openTestDatabase(kind);
    try {
      const db = test.database.db;
      await seedHistory(db);
      const budget = await rows(db, sql`select day::text, committed::text from budget_days order by day`);
      const cutoff = new Date(Date.now() - 90 * DAY);
      expect(await countPrunable(db, cutoff)).toEqual({ purchases: 4, events: 12 });
      const ids = await rows<{ id: number; request_key: string }>(
        db,
        sql`select id, request_key from purchases where request_key in (${sql.join(
          PRUNED.map((k) => sql`${k}`),
          sql`, `,
        )}) order by id`,
      );

      const lines: string[] = [];
      const pruned = await prunePurchases(test.database, cutoff, async (batch) => {
        lines.push(...batch);
      });

      expect(pruned).toEqual({ purchases: 4, events: 12 });
      const archived = lines.map(
        (line) =>
          JSON.parse(line) as {
            purchase: { id: number; request_key: string };
            events: Array<{ to_state: string; response: unknown }>;
          },
      );
      expect(archived.map((a) => a.purchase.request_key)).toEqual(ids.map((r) => r.request_key));
      expect(archived[0]?.events.map((e) => e.to_state)).toEqual(["queued", "submitting", "submitted"]);
      // The provider's answer as stored, key order and all.
      expect(lines[0]).toContain('"response":{"status":true,"data":{"reference":"R","amount":"305.00"}}');

      const left = await rows<{ request_key: string }>(
        db,
        sql`select request_key from purchases order by id`,
      );
      expect(left.map((r) => r.request_key)).toEqual([
        "old-in-doubt",
        "old-unverified",
        "old-submitted",
        "old-queued",
        "old-unreflected",
        "recent-ok",
      ]);
      const [events] = await rows<{ n: number }>(
        db,
        sql`select count(*)::int as n from purchase_events e where not exists (select 1 from purchases p where p.id = e.purchase_id)`,
      );
      expect(events?.n).toBe(0);
      expect(await rows(db, sql`select day::text, committed::text from budget_days order by day`)).toEqual(
        budget,
      );

      // The counts and the report still say what the ledger holds.
      const stats = await readLedgerStats(db, new Date(), "Africa/Lagos");
      expect(stats.byState).toMatchObject({
        succeeded: 2,
        failed: 0,
        rejected: 0,
        cancelled: 0,
        in_doubt: 1,
      });
      const report = await readSpendHistory(db, new Date(Date.now() - 400 * DAY), "Africa/Lagos");
      expect(report.states.map((s) => `${s.state}:${s.n}`)).toEqual([
        "in_doubt:1",
        "queued:1",
        "submitted:1",
        "succeeded:2",
        "unverified:1",
      ]);

      // Their keys are still taken: nothing is bought again, however it is asked for.
      expect(
        await insertPurchases(
          db,
          [
            {
              request_key: PRUNED[0]!,
              source: "job",
              job_name: "staff",
              network: "MTN",
              phone: "08031234567",
            },
          ],
          "test",
        ),
      ).toBe(0);
      expect(await existingKeys(db, [PRUNED[0]!, "never-used"])).toEqual(new Set([PRUNED[0]]));
      await rows(
        db,
        sql`insert into purchase_requests (request_key, network, plan_id, phone) values ('old-failed', 'MTN', '102', '08031234567')`,
      );
      await ingestIntake(db, 10, "test");
      const [request] = await rows<{ purchase_id: number; error: string; processed: boolean }>(
        db,
        sql`select purchase_id, error, processed_at is not null as processed from purchase_requests`,
      );
      expect({ ...request, purchase_id: Number(request?.purchase_id) }).toMatchObject({
        purchase_id: Number(ids[1]!.id),
        processed: true,
      });
      expect(request?.error).toContain("pruned");
      const [count] = await rows<{ n: number }>(db, sql`select count(*)::int as n from purchases`);
      expect(count?.n).toBe(6);
      await expect(findPurchase(db, String(ids[0]!.id))).rejects.toMatchObject({ code: "PURCHASE_PRUNED" });

      // A second prune finds nothing more.
      expect(await prunePurchases(test.database, cutoff)).toEqual({ purchases: 0, events: 0 });
    } finally {
      await test.drop();
    }
  });
});

describe.each(DB_KINDS)("purchases prune and a question left to a person (%s)", (kind) => {
  it("keeps a settled purchase flagged reference_clash, however old, until a person has decided", async () => {
    const test = await openTestDatabase(kind);
    try {
      const db = test.database.db;
      await seedHistory(db);
      // A purchase answered today names the reference of the one that failed 100 days ago: both are flagged, and a
      // person must say which purchase the provider's transaction is. The old one is the evidence of that question.
      const [old] = await rows<{ id: number | string }>(
        db,
        sql`select id from purchases where request_key = 'old-failed'`,
      );
      const flagged = await flagReferenceClash(
        db,
        [Number(old!.id)],
        "the provider's purchase answer of purchase 99 names reference REF-old-failed, which this purchase carries",
        { actor: "test" },
      );
      expect(flagged).toEqual([Number(old!.id)]);
      const cutoff = new Date(Date.now() - 90 * DAY);
      expect(await countPrunable(db, cutoff)).toEqual({ purchases: 3, events: 9 });
      expect(await prunePurchases(test.database, cutoff)).toEqual({ purchases: 3, events: 9 });
      expect(await findPurchase(db, String(old!.id))).toMatchObject({ state: "failed" });
      // Decided: the flag is cleared, and the purchase is prunable with the others settled before a cutoff after
      // now (last week's, and this one: its 3 events, the flag's and the decision's).
      expect(
        await resolveByPerson(
          db,
          Number(old!.id),
          "failed",
          { clash: true },
          { actor: "ada", reason: "ours" },
        ),
      ).toBeDefined();
      expect(await countPrunable(db, new Date(Date.now() + 60_000))).toEqual({ purchases: 2, events: 8 });
    } finally {
      await test.drop();
    }
  });
});

describe("a prune racing the ledger's inserts (postgres)", () => {
  it("a key being pruned is not bought again by a fire, an intake row or a buy that starts before the prune commits", async () => {
    const test = await openTestDatabase("postgres");
    try {
      const db = test.database.db;
      const fireTime = new Date("2025-01-01T07:00:00.000Z");
      const keys = {
        fire: `job:staff:${fireTime.toISOString()}:08031234567`,
        intake: "crm-order-1842",
        buy: "buy:mtn:102:08031234567:2025-01-01T07:00:00.000Z",
      };
      await rows(
        db,
        sql`insert into purchases (request_key, source, job_name, network, phone, amount, state, settled_at, updated_at)
            select k, 'job', 'staff', 'MTN', '08031234567', 305, 'succeeded', now() - interval '100 days',
              now() - interval '100 days'
            from unnest(${`{${Object.values(keys).join(",")}}`}::text[]) as k`,
      );
      await rows(
        db,
        sql`insert into purchase_requests (request_key, network, plan_id, phone) values (${keys.intake}, 'MTN', '102', '08031234567')`,
      );
      const buyRow = {
        request_key: keys.buy,
        source: "buy",
        network: "MTN",
        plan_id: "102",
        phone: "08031234567",
      };
      const fire = {
        keyPrefix: `job:staff:${fireTime.toISOString()}:`,
        job_name: "staff",
        fire_time: fireTime,
        network: "MTN",
        plan_id: "102",
        plan_selector: null,
        max_price: null,
        max_attempts: 5,
        not_before: fireTime,
        requested_by: "job:staff",
      };

      // The prune's transaction has moved the three purchases out and is held open while each source writes the
      // same key again; their statements start before it commits.
      let inserts: Promise<unknown> | undefined;
      const pruned = await test.database.transaction(async (tx) => {
        const batch = await pruneBatch(tx, new Date(Date.now() - 90 * DAY), 0);
        inserts = Promise.all([
          insertFireRows(db, fire, [{ phone: "08031234567", ported: false }], "test"),
          ingestIntake(db, 10, "test"),
          insertPurchases(db, [buyRow], "test"),
        ]);
        await waitForLockWaits(db, 3);
        return batch.purchases;
      });
      expect(pruned).toBe(3);
      const [fired, intake, bought] = (await inserts) as [number, { moved: number }, number];
      expect({ fired, bought }).toEqual({ fired: 0, bought: 0 });
      expect(intake.moved).toBe(1);
      const [left] = await rows<{ n: number }>(db, sql`select count(*)::int as n from purchases`);
      expect(left?.n).toBe(0);
      const [request] = await rows<{ error: string | null }>(db, sql`select error from purchase_requests`);
      expect(request?.error).toContain("pruned");
    } finally {
      await test.drop();
    }
  });
});

/** Waits until `count` sessions of this database are waiting for a lock (not for a time: a held transaction). */
async function waitForLockWaits(db: Db, count: number): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const [waiting] = await rows<{ n: number }>(
      db,
      sql`select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`,
    );
    if ((waiting?.n ?? 0) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`fewer than ${count} sessions came to wait for a lock within 10 s`);
}

describe("topsync purchases prune", () => {
  let sandbox: Sandbox;
  let url: string;
  let drop: () => Promise<void>;
  let file: string;
  let dir: string;
  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 3 });
    ({ url, drop } = await createPostgresDatabase());
    ({ file, dir } = writeConfigFile(sandbox, url));
  });
  afterAll(async () => {
    await sandbox.close();
    await drop();
  });

  it("dry runs, archives to a file it appends to, and refuses a cutoff to come or an archive it cannot write", async () => {
    await migrateAndSeed(file, url);
    const dry = await runCli(["-c", file, "--json", "purchases", "prune", "--before", "90d", "--dry-run"]);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dry_run: true, purchases: 4, events: 12 });

    const archive = join(dir, "archive.jsonl");
    writeFileSync(archive, "an earlier line\n");
    const done = await runCli(["-c", file, "purchases", "prune", "--before", "90d", "--archive", archive]);
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/^pruned 4 purchases \(12 events\) settled before .*, archived to /);
    const lines = readFileSync(archive, "utf8").trim().split("\n");
    expect(lines).toHaveLength(5);
    expect(lines[0]).toBe("an earlier line");
    expect(lines.slice(1).map((l) => JSON.parse(l).purchase.request_key)).toEqual(PRUNED);

    const future = await runCli(["-c", file, "purchases", "prune", "--before", "2999-01-01"]);
    expect(future.code).toBe(64);
    expect(future.stderr).toContain("in the future");
    const link = join(dir, "link.jsonl");
    symlinkSync(archive, link);
    const linked = await runCli(["-c", file, "purchases", "prune", "--before", "90d", "--archive", link]);
    expect(linked.code).toBe(64);
    expect(linked.stderr).toContain("symbolic link");
    const bad = await runCli(["-c", file, "purchases", "prune", "--before", "soon"]);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain("--before must be");
  });

  it("reads a duration reaching back before 1970 as since 1970, and a progress interval beyond a timer's reach as a day", async () => {
    const own = await createPostgresDatabase();
    const { file } = writeConfigFile(sandbox, own.url);
    await migrateAndSeed(file, own.url);
    // Before, a cutoff no date can hold: PostgreSQL refused "-271764-03-17…" and the command failed unexpectedly (1);
    // the list's own "Invalid time value". A huge TOPSYNC_PROGRESS_INTERVAL made Node.js fire the timer at once.
    const env = { TOPSYNC_PROGRESS_INTERVAL: "99999999999d" };
    const far = await runCli(["-c", file, "purchases", "prune", "--before", "99999999d"], env);
    expect(far.code, far.stderr).toBe(0);
    expect(far.stdout).toBe("pruned 0 purchases (0 events) settled before 1970-01-01T00:00:00.000Z\n");
    expect(far.stderr).not.toContain("TimeoutOverflowWarning");
    const all = await runCli(["-c", file, "--json", "purchases", "list", "--since", "1000000000d"]);
    expect(all.code, all.stderr).toBe(0);
    const since90 = await runCli(["-c", file, "--json", "purchases", "list", "--since", "36500d"]);
    expect(JSON.parse(all.stdout)).toEqual(JSON.parse(since90.stdout));
    expect(JSON.parse(all.stdout).length).toBeGreaterThan(0);
    await own.drop();
  });
});

describe("the prune archive file", () => {
  it("starts a line of its own after a line not its own, and does not write again the lines at its end", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "topsync-archive-")), "archive.jsonl");
    writeFileSync(file, "an earlier line, unterminated");
    const first = await openPruneArchive(file);
    await first.append(['{"purchase":{"id":1}}', '{"purchase":{"id":2}}']);
    await first.close();
    const second = await openPruneArchive(file);
    await second.append(['{"purchase":{"id":2}}', '{"purchase":{"id":3}}']);
    await second.append(['{"purchase":{"id":4}}']);
    await second.close();
    expect(readFileSync(file, "utf8")).toBe(
      'an earlier line, unterminated\n{"purchase":{"id":1}}\n{"purchase":{"id":2}}\n{"purchase":{"id":3}}\n{"purchase":{"id":4}}\n',
    );
  });
});

describe("topsync purchases prune --archive, when the disk or the process fails", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 3 });
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it("prunes nothing and fails when the archive takes less than the whole batch, and creates it for its owner alone", async () => {
    const { url, drop } = await createPostgresDatabase();
    const { file, dir } = writeConfigFile(sandbox, url);
    const admin = postgres(url, { max: 2, onnotice: () => {} });
    try {
      await migrateAndSeed(file, url);
      const archive = join(dir, "short.jsonl");
      const prune = ["-c", file, "purchases", "prune", "--before", "90d", "--archive", archive];

      // A file size limit of 1,024 bytes: the batch's four lines do not fit.
      const short = await runCliLimited(prune, 1);
      expect(short.code).toBe(1);
      expect(short.stderr).toContain(`cannot write the archive ${archive}`);
      expect(short.stdout).toBe("");
      expect(statSync(archive).mode & 0o777).toBe(0o600);
      expect(readFileSync(archive, "utf8")).toBe("");
      const [kept] = await admin<{ prunable: number; tombstones: number }[]>`
        select (select count(*)::int from purchases where request_key in ${admin(PRUNED)}) as prunable,
          (select count(*)::int from pruned_purchases) as tombstones`;
      expect(kept).toEqual({ prunable: 4, tombstones: 0 });

      // One prune at a time: a second one, while the first holds the ledger, prunes nothing.
      const first = await admin.reserve();
      try {
        await first`select pg_advisory_lock(${PRUNING_LOCK[0]}::int, ${PRUNING_LOCK[1]}::int)`;
        const second = await runCli(prune);
        expect(second.code).toBe(1);
        expect(second.stderr).toContain("another purchases prune is running");
        await first`select pg_advisory_unlock(${PRUNING_LOCK[0]}::int, ${PRUNING_LOCK[1]}::int)`;
      } finally {
        first.release();
      }

      const done = await runCli(prune);
      expect(done.code).toBe(0);
      const lines = readFileSync(archive, "utf8").split("\n");
      expect(lines.pop()).toBe("");
      expect(lines.map((l) => JSON.parse(l).purchase.request_key)).toEqual(PRUNED);
    } finally {
      await admin.end();
      await drop();
    }
  });

  it("loses nothing and archives nothing twice when killed at any point, and the next prune finishes the job", async () => {
    const { url, drop } = await createPostgresDatabase();
    const { file, dir } = writeConfigFile(sandbox, url);
    const admin = postgres(url, {
      max: 2,
      onnotice: () => {},
      connection: { application_name: "prune-test" },
    });
    try {
      expect((await runCli(["-c", file, "migrate"])).code).toBe(0);
      // Two batches' worth: 5,010 purchases settled 100 days ago, two events each.
      const total = 5010;
      await admin`
        insert into purchases (request_key, source, network, phone, amount, state, settled_at, updated_at)
        select 'old-' || i, 'intake', 'MTN', '08031234567', 305, 'succeeded', now() - interval '100 days',
          now() - interval '100 days'
        from generate_series(1, ${total}) as i`;
      await admin`
        insert into purchase_events (purchase_id, actor, from_state, to_state, reason, response)
        select p.id, 'test', e.f, e.t, 'seeded', '{"status":true}'::json
        from purchases p cross join (values (null, 'queued'), ('queued', 'succeeded')) as e(f, t)`;
      const keys = (
        await admin<{ request_key: string }[]>`select request_key from purchases order by id`
      ).map((r) => r.request_key);
      const archive = join(dir, "ledger.jsonl");
      const prune = ["-c", file, "purchases", "prune", "--before", "90d", "--archive", archive];

      /**
       * The archive's lines (each complete JSON, none twice) and the ledger's keys: every purchase is in one or both
       * (both: archived by a prune killed before it deleted them).
       */
      const accounted = async () => {
        const text = readFileSync(archive, "utf8");
        expect(text === "" || text.endsWith("\n")).toBe(true);
        const archived = text
          .split("\n")
          .filter((line) => line !== "")
          .map((line) => (JSON.parse(line) as { purchase: { request_key: string } }).purchase.request_key);
        const ledger = (await admin<{ request_key: string }[]>`select request_key from purchases`).map(
          (r) => r.request_key,
        );
        expect(new Set(archived).size).toBe(archived.length);
        expect([...new Set([...archived, ...ledger])].sort()).toEqual([...keys].sort());
        return { archived: archived.length, ledger: ledger.length };
      };

      // Killed before it wrote anything: held at its first read of the events.
      await killWhileHeld(admin, prune, ["lock table purchase_events in access exclusive mode"]);
      expect(await accounted()).toEqual({ archived: 0, ledger: total });
      // A prune killed while writing leaves a line cut off at the end of the archive.
      appendFileSync(archive, '{"purchase":{"id":1,"request_key":"old-1","sou');

      // Killed after the first batch was archived and before it was deleted: held at the batch's keys.
      await killWhileHeld(admin, prune, [insertTombstone(keys[10]!)]);
      expect(await accounted()).toEqual({ archived: 5000, ledger: total });

      // Killed after the first batch was deleted and the second archived: held at the second batch's keys.
      await killWhileHeld(admin, prune, [insertTombstone(keys[5005]!)]);
      expect(await accounted()).toEqual({ archived: total, ledger: 10 });

      // Killed after every batch was deleted, while sealing the rollups again.
      await killWhileHeld(admin, prune, ["select pg_advisory_xact_lock(7263541002)"]);
      expect(await accounted()).toEqual({ archived: total, ledger: 0 });

      const again = await runCli(prune);
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/^pruned 0 purchases/);
      expect(await accounted()).toEqual({ archived: total, ledger: 0 });
      const [tombstones] = await admin<{ n: number }[]>`select count(*)::int as n from pruned_purchases`;
      expect(tombstones?.n).toBe(total);
    } finally {
      await admin.end();
      await drop();
    }
  }, 120_000);
});

/** A key a prune is about to take, taken by a transaction not yet committed: the prune's delete waits for it. */
function insertTombstone(key: string): string {
  return `insert into pruned_purchases (request_key, purchase_id, state) values ('${key}', 0, 'succeeded')`;
}

/**
 * Runs `statements` in a transaction of the test's, starts the CLI with `args`, waits until one of its sessions waits
 * for a lock, kills it (SIGKILL), then rolls back and waits until its sessions are gone.
 */
async function killWhileHeld(admin: postgres.Sql, args: string[], statements: string[]): Promise<void> {
  const held = await admin.reserve();
  try {
    await held`begin`;
    for (const statement of statements) await held.unsafe(statement);
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "" },
      stdio: "ignore",
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      await waitFor(admin, "a session of the prune waiting for a lock", (s) => s.waiting > 0);
    } finally {
      child.kill("SIGKILL");
      await exited;
    }
  } finally {
    await held`rollback`;
    held.release();
  }
  await waitFor(admin, "the killed prune's sessions to end", (s) => s.sessions === 0);
}

async function waitFor(
  admin: postgres.Sql,
  what: string,
  done: (state: { sessions: number; waiting: number }) => boolean,
): Promise<void> {
  for (let i = 0; i < 1500; i++) {
    const [state] = await admin<{ sessions: number; waiting: number }[]>`
      select count(*)::int as sessions, (count(*) filter (where wait_event_type = 'Lock'))::int as waiting
      from pg_stat_activity where datname = current_database() and application_name = 'topsync'`;
    if (state && done(state)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`waited 30 s for ${what}`);
}

/** The CLI under a file size limit of `blocks` KiB (`ulimit -f`), as a full disk or a quota would cut its writes. */
function runCliLimited(args: string[], blocks: number): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      "bash",
      ["-c", 'ulimit -f "$1" && shift && exec "$@"', "bash", String(blocks), process.execPath, CLI, ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? "" }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr: readableStderr(stderr), rawStderr: stderr });
      },
    );
  });
}
