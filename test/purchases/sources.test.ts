import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import { purchaseRequests } from "../../src/db/schema.js";
import { DataError } from "../../src/errors.js";
import { ingestIntake } from "../../src/purchases/sources/intake.js";
import { fireJob } from "../../src/purchases/sources/jobs.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { testConfig } from "../helpers/config.js";
import { DB_KINDS, openTestDatabase, type TestDatabase } from "../helpers/db.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
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
