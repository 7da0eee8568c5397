// The operator's flags and other systems' rows are claims too: `--fire-time` must name a fire of the job, and
// an intake row cannot take a key that belongs to a job fire or to `topsync buy`.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, rows } from "../../src/db/client.js";
import { purchaseRequests } from "../../src/db/schema.js";
import { ingestIntake } from "../../src/purchases/sources/intake.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { runCli } from "../helpers/cli.js";
import { writeConfigFile } from "../helpers/config.js";
import { createPostgresDatabase, DB_KINDS, openTestDatabase } from "../helpers/db.js";

describe("--fire-time", () => {
  let sandbox: Sandbox;
  let url: string;
  let drop: () => Promise<void>;
  let file: string;
  const plan = { network: "MTN", plan_id: "101" };

  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 8 });
    ({ url, drop } = await createPostgresDatabase());
    ({ file } = writeConfigFile(sandbox, url, {
      timezone: "UTC",
      purchases: [
        { name: "monthly", schedule: "0 8 1 * *", plan, recipients: ["08031270001"] },
        { name: "once", at: "2026-12-24T18:00:00Z", plan, recipients: ["08031270002"] },
        { name: "adhoc", plan, recipients: ["08031270003"] },
      ],
    }));
  });
  afterAll(async () => {
    await sandbox.close();
    await drop();
  });

  const purchases = async () => {
    const database = await openDatabase({ url, maxConnections: 1 });
    try {
      return await rows<{ request_key: string }>(
        database.db,
        sql`select request_key from purchases order by id`,
      );
    } finally {
      await database.close();
    }
  };

  it("is truncated to the minute: three instants of one fire buy once", { timeout: 60_000 }, async () => {
    for (const time of ["2026-11-01T08:00:00Z", "2026-11-01T08:00:00.001Z", "2026-11-01T08:00:30Z"]) {
      const result = await runCli(["-c", file, "purchases", "run", "--job", "monthly", "--fire-time", time]);
      expect(result.code, result.stderr).toBe(0);
    }
    expect((await purchases()).map((r) => r.request_key)).toEqual([
      "job:monthly:2026-11-01T08:00:00.000Z:08031270001",
    ]);
    expect(sandbox.debits()).toHaveLength(1);
  });

  it("purchases run says how many intake requests it refused, not only how many it took", async () => {
    const database = await openDatabase({ url, maxConnections: 1 });
    try {
      await database.db.execute(sql`
        insert into purchase_requests (request_key, network, plan_id, phone, not_before) values
          ('crm-summary-never', 'MTN', '101', '08031270011', 'infinity'),
          ('crm-summary-ok', 'MTN', '101', '08031270012', null)`);
    } finally {
      await database.close();
    }
    const result = await runCli(["-c", file, "purchases", "run"]);
    expect(result.code, result.stderr).toBe(0);
    // Before: "2 intake requests queued", one of them refused.
    expect(result.stdout).toContain(
      "; 2 intake requests taken: 1 queued, 1 refused (purchase_requests.error says why)",
    );
  });

  it("must be a fire the job's schedule or `at` produces: exit 64 naming the job and the nearest fires", async () => {
    const before = (await purchases()).length;
    const wrong = await runCli([
      "-c",
      file,
      "purchases",
      "run",
      "--job",
      "monthly",
      "--fire-time",
      "2026-11-17T13:37Z",
    ]);
    expect(wrong.code).toBe(64);
    expect(wrong.stderr).toContain('--fire-time 2026-11-17T13:37:00.000Z is not a fire of job "monthly"');
    expect(wrong.stderr).toContain(
      "the nearest fires are 2026-11-01T08:00:00.000Z and 2026-12-01T08:00:00.000Z",
    );
    const notAt = await runCli([
      "-c",
      file,
      "purchases",
      "run",
      "--job",
      "once",
      "--fire-time",
      "2026-12-24T19:00Z",
    ]);
    expect(notAt.code).toBe(64);
    expect(notAt.stderr).toContain("2026-12-24T18:00:00.000Z");
    expect((await purchases()).length).toBe(before);
  });

  it("takes any minute for an on-demand job", { timeout: 60_000 }, async () => {
    const result = await runCli([
      "-c",
      file,
      "purchases",
      "run",
      "--job",
      "adhoc",
      "--fire-time",
      "2026-11-17T13:37:45Z",
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect((await purchases()).map((r) => r.request_key)).toContain(
      "job:adhoc:2026-11-17T13:37:00.000Z:08031270003",
    );
  });
});

describe.each(DB_KINDS)("intake times on %s", (kind) => {
  it("a row due at infinity or -infinity is refused with its error, and the rows beside it move", async () => {
    // Before, such a row (a CRM's "never" or "always") failed the whole run: "unexpected failure: Invalid time
    // value", every other request left unmoved, run after run.
    const test = await openTestDatabase(kind);
    try {
      await test.database.db.execute(sql`
        insert into purchase_requests (request_key, network, plan_id, phone, not_before) values
          ('crm-never', 'MTN', '101', '08031290001', 'infinity'),
          ('crm-always', 'MTN', '101', '08031290002', '-infinity'),
          ('crm-ok', 'MTN', '101', '08031290003', '2026-11-27T10:00:00Z')`);
      expect(await ingestIntake(test.database.db, 100, "test")).toEqual({ moved: 3, invalid: 2, refused: 2 });
      const found = await rows<{ request_key: string; purchase_id: number | null; error: string | null }>(
        test.database.db,
        sql`select request_key, purchase_id, error from purchase_requests order by id`,
      );
      const refusal = "not_before must be a date and time (infinity and -infinity are not)";
      expect(found.map((r) => [r.request_key, r.purchase_id !== null, r.error])).toEqual([
        ["crm-never", false, refusal],
        ["crm-always", false, refusal],
        ["crm-ok", true, null],
      ]);
    } finally {
      await test.drop();
    }
  });
});

describe.each(DB_KINDS)("intake text lengths on %s", (kind) => {
  it("a row whose key, plan or phone is far too long is refused with its error, not carried into the ledger", async () => {
    // Before, a 100,000-character plan_id went into the ledger, its events, and every row of `purchases list`.
    const test = await openTestDatabase(kind);
    try {
      const base = { network: "MTN", plan_id: "101", phone: "08031300001" };
      await test.database.db.insert(purchaseRequests).values([
        { ...base, request_key: "crm-long-plan", plan_id: "1".repeat(100_000) },
        { ...base, request_key: "k".repeat(501) },
        { ...base, request_key: "crm-long-phone", phone: "0".repeat(65) },
        { ...base, request_key: "crm-fine", plan_id: "1".repeat(100), phone: "0".repeat(64) },
      ]);
      expect(await ingestIntake(test.database.db, 100, "test")).toMatchObject({ moved: 4, refused: 3 });
      const found = await rows<{ purchase_id: number | null; error: string | null }>(
        test.database.db,
        sql`select purchase_id, error from purchase_requests order by id`,
      );
      expect(found.map((r) => [r.purchase_id !== null, r.error])).toEqual([
        [false, "plan_id is 100000 characters, more than the 100 it may have"],
        [false, "request_key is 501 characters, more than the 500 it may have"],
        [false, "phone is 65 characters, more than the 64 it may have"],
        [true, null],
      ]);
    } finally {
      await test.drop();
    }
  });
});

describe.each(DB_KINDS)("intake keys on %s", (kind) => {
  it("a row that takes a job's or buy's key, or asks for a price of 0 or below, is refused with its error", async () => {
    const test = await openTestDatabase(kind);
    try {
      const base = { network: "MTN", plan_id: "101", phone: "08031280001" };
      await test.database.db.insert(purchaseRequests).values([
        { ...base, request_key: "job:staff:2026-11-01T07:00:00.000Z:08031280001" },
        { ...base, request_key: "BUY:mtn:101:08031280001" },
        { ...base, request_key: "crm-negative", max_price: "-5.00" },
        { ...base, request_key: "crm-no-plan", plan_id: null },
        { ...base, request_key: "crm-ok", max_price: "200.00" },
      ]);
      const moved = await ingestIntake(test.database.db, 100, "test");
      expect(moved).toEqual({ moved: 5, invalid: 4, refused: 4 });
      const found = await rows<{ request_key: string; purchase_id: number | null; error: string | null }>(
        test.database.db,
        sql`select request_key, purchase_id, error from purchase_requests order by id`,
      );
      expect(found.map((r) => [r.request_key, r.purchase_id !== null, r.error])).toEqual([
        [
          "job:staff:2026-11-01T07:00:00.000Z:08031280001",
          false,
          'request_key may not start with "job:": those keys belong to job fires',
        ],
        [
          "BUY:mtn:101:08031280001",
          false,
          'request_key may not start with "buy:": those keys belong to topsync buy',
        ],
        ["crm-negative", false, "max_price must be an amount above 0, got -5.00"],
        ["crm-no-plan", false, "give plan_id or plan_size"],
        ["crm-ok", true, null],
      ]);
      const [{ n }] = (await rows<{ n: number }>(
        test.database.db,
        sql`select count(*)::int as n from purchases`,
      )) as [{ n: number }];
      expect(n).toBe(1);
    } finally {
      await test.drop();
    }
  });
});
