import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import { purchaseRequests } from "../../src/db/schema.js";
import { DataError } from "../../src/errors.js";
import { insertPurchases, type NewPurchase } from "../../src/purchases/ledger.js";
import { ingestIntake } from "../../src/purchases/sources/intake.js";
import { fireJob, fireRows } from "../../src/purchases/sources/jobs.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { testConfig } from "../helpers/config.js";
import { DB_KINDS, openTestDatabase, type TestDatabase } from "../helpers/db.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ verifyLag: "reads" });
});
afterAll(() => sandbox.close());

function jobWithFile(file: string) {
  return testConfig(sandbox, {
    purchases: [
      {
        name: "campaign",
        plan: { network: "MTN", plan_id: "101" },
        recipients: ["08031234567"],
        recipients_file: file,
      },
    ],
  }).purchases[0]!;
}

const count = async (test: TestDatabase, table: "purchases" | "purchase_events") =>
  (
    await rows<{ n: number }>(test.database.db, sql`select count(*)::int as n from ${sql.identifier(table)}`)
  )[0]!.n;

describe("a 100,000-row recipients file", () => {
  let test: TestDatabase;
  const dir = tmpdir();
  beforeAll(async () => {
    test = await openTestDatabase("postgres");
  });
  afterAll(() => test.drop());

  it("streams into the ledger in batches, once per fire", { timeout: 120_000 }, async () => {
    const file = join(dir, `recipients-${process.pid}.csv`);
    const lines = ["phone,ported"];
    for (let i = 0; i < 100_000; i++)
      lines.push(`0803${String(3_000_000 + i)},${i % 50 === 0 ? "true" : ""}`);
    writeFileSync(file, `${lines.join("\n")}\n`);
    const job = jobWithFile(file);
    const fireTime = new Date("2026-12-01T07:00:00Z");
    const options = { configDir: dir, defaultAttempts: 5, actor: "test" };
    const first = await fireJob(test.database.db, job, fireTime, options);
    expect(first).toMatchObject({ recipients: 100_001, inserted: 100_001 });
    const again = await fireJob(test.database.db, job, fireTime, options);
    expect(again.inserted).toBe(0);
    expect(await count(test, "purchases")).toBe(100_001);
    const [ported] = await rows<{ n: number }>(
      test.database.db,
      sql`select count(*)::int as n from purchases where ported`,
    );
    expect(ported!.n).toBe(2000);
  });

  it("with one bad row near the end: exit 65 naming the line, and nothing from the file inserted", {
    timeout: 120_000,
  }, async () => {
    const file = join(dir, `recipients-bad-${process.pid}.csv`);
    const lines = ["phone"];
    for (let i = 0; i < 100_000; i++) lines.push(i === 99_997 ? "0803-oops" : `0806${String(3_000_000 + i)}`);
    writeFileSync(file, `${lines.join("\n")}\n`);
    const before = await count(test, "purchases");
    const error = await fireJob(test.database.db, jobWithFile(file), new Date("2026-12-02T07:00:00Z"), {
      configDir: dir,
      defaultAttempts: 5,
      actor: "test",
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataError);
    expect((error as DataError).exitCode).toBe(65);
    expect((error as DataError).message).toContain('line 99999: "0803-oops" is an invalid phone number');
    expect(await count(test, "purchases")).toBe(before);
  });
});

describe.each(DB_KINDS)("the intake table on %s", (kind) => {
  it("moves each request into the ledger exactly once and writes back the purchase id", async () => {
    const test = await openTestDatabase(kind);
    try {
      await test.database.db.insert(purchaseRequests).values([
        { request_key: "crm-1", network: "MTN", plan_id: "102", phone: "08031230001", requested_by: "crm" },
        { request_key: "crm-2", network: "GLO", plan_size: "1GB", phone: "08051230002", max_price: "500.00" },
        { request_key: "crm-3", network: "MTN", plan_size: "lots", phone: "08031230003" },
      ]);
      await expect(
        test.database.db
          .insert(purchaseRequests)
          .values({ request_key: "crm-1", network: "MTN", phone: "08031230009" }),
      ).rejects.toThrow();
      const results = await Promise.all([
        ingestIntake(test.database.db, 2, "a"),
        ingestIntake(test.database.db, 2, "b"),
      ]);
      const rest = await ingestIntake(test.database.db, 2, "c");
      expect(results.reduce((n, r) => n + r.moved, 0) + rest.moved).toBe(3);
      expect(await count(test, "purchases")).toBe(3);
      const linked = await rows<{
        request_key: string;
        purchase_id: number | null;
        error: string | null;
        selector: unknown;
      }>(
        test.database.db,
        sql`select r.request_key, r.purchase_id, r.error, p.plan_selector as selector
            from purchase_requests r join purchases p on p.id = r.purchase_id order by r.request_key`,
      );
      expect(linked.map((l) => l.request_key)).toEqual(["crm-1", "crm-2", "crm-3"]);
      expect(linked[1]!.selector).toEqual({ size_mb: 1024 });
      expect(linked[2]!.error).toBe('plan_size "lots" is not a size');
      expect((await ingestIntake(test.database.db, 10, "d")).moved).toBe(0);
    } finally {
      await test.drop();
    }
  });
});

describe("a fire's rows", () => {
  // A fire is written by its own statement (the recipients only, beside what its rows share); what it writes must
  // be what the generic intake statement writes for the same rows, column for column.
  for (const kind of DB_KINDS) {
    it(`are the rows insertPurchases writes for them, pruned keys and repeats skipped (${kind})`, async () => {
      const [viaFire, viaRows] = await Promise.all([openTestDatabase(kind), openTestDatabase(kind)]);
      try {
        const job = testConfig(sandbox, {
          purchases: [
            {
              name: "selected",
              plan: { network: "GLO", size: "1GB", type: "SME", name_contains: 'it\'s "1GB" \\ {x}' },
              max_price: "250.50",
              max_attempts: 3,
              recipients: [
                "0803 123 4567",
                { phone: "+2348031234568", ported: true },
                "0803-123-4570",
                "08031234569",
                "08031234567",
              ],
            },
          ],
        }).purchases[0]!;
        const fireTime = new Date("2026-12-01T07:00:00.000Z");
        const rowsOf = async function* () {
          yield* fireRows(job, fireTime, 5);
        };
        const expected = (await rowsOf().next()).value as NewPurchase[];
        // One key already pruned in both ledgers: neither writes it again.
        for (const test of [viaFire, viaRows]) {
          await rows(
            test.database.db,
            sql`insert into pruned_purchases (request_key, purchase_id, state) values (${expected[3]!.request_key}, 99, 'succeeded')`,
          );
        }
        const fired = await fireJob(viaFire.database.db, job, fireTime, {
          configDir: tmpdir(),
          defaultAttempts: 5,
          actor: "test",
        });
        const inserted = await insertPurchases(viaRows.database.db, expected, "test");
        expect(fired).toMatchObject({ recipients: 5, inserted: 3 });
        expect(inserted).toBe(3);
        const read = (test: TestDatabase) =>
          rows<Record<string, unknown>>(
            test.database.db,
            sql`select request_key, source, job_name, fire_time::text, network, plan_id, plan_selector::text,
                  phone, ported, max_price::text, max_attempts, not_before::text, requested_by, state, attempts,
                  (select string_agg(e.actor || ' ' || e.to_state || ' ' || e.reason, ';') from purchase_events e
                   where e.purchase_id = p.id) as events
                from purchases p order by request_key`,
          );
        const written = await read(viaFire);
        expect(written).toEqual(await read(viaRows));
        expect(written.map((r) => [r.phone, r.ported, r.events])).toEqual([
          ["08031234567", false, "test queued accepted"],
          ["08031234568", true, "test queued accepted"],
          ["08031234570", false, "test queued accepted"],
        ]);
      } finally {
        await Promise.all([viaFire.drop(), viaRows.drop()]);
      }
    });
  }
});
