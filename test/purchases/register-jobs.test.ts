// registerJobs: the jobs table remembers when each job first appeared (no catch-up fire from before that), in
// one statement that also answers for jobs another process registered a moment before.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PurchaseJob } from "../../src/config/index.js";
import { type Database, openDatabase, rows } from "../../src/db/client.js";
import { registerJobs } from "../../src/purchases/run-once.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";

const job = (name: string) => ({ name }) as PurchaseJob;
const T1 = new Date("2026-11-01T08:00:00.000Z");
const T2 = new Date("2026-11-20T08:00:00.000Z");

for (const kind of ["postgres", "pglite"] as const) {
  describe(`registerJobs (${kind})`, () => {
    let test: TestDatabase;
    beforeAll(async () => {
      test = await openTestDatabase(kind);
    });
    afterAll(async () => {
      await test?.drop();
    });

    it("keeps each job's first appearance and answers for exactly the jobs asked about", async () => {
      const first = await registerJobs(test.database, [job("a"), job('odd "name" \\ ,{x}')], T1);
      expect(first).toEqual(
        new Map([
          ["a", T1],
          ['odd "name" \\ ,{x}', T1],
        ]),
      );
      // Later: "a" keeps its time, "b" is new; the other job is not asked about and not answered.
      const later = await registerJobs(test.database, [job("a"), job("b")], T2);
      expect(later).toEqual(
        new Map([
          ["a", T1],
          ["b", T2],
        ]),
      );
      const stored = await rows<{ name: string }>(test.database.db, sql`select name from jobs order by name`);
      expect(stored.map((r) => r.name)).toEqual(["a", "b", 'odd "name" \\ ,{x}']);
      expect(await registerJobs(test.database, [], T2)).toEqual(new Map());
    });
  });
}

describe("registerJobs from two processes at once", () => {
  let test: TestDatabase;
  let other: Database;
  beforeAll(async () => {
    test = await openTestDatabase("postgres");
    other = await openDatabase({ url: test.url, maxConnections: 2 });
  });
  afterAll(async () => {
    await other?.close();
    await test?.drop();
  });

  it("both learn the one first appearance, whichever wrote it, in whatever order their configs list the jobs", async () => {
    for (let round = 0; round < 10; round++) {
      const names = Array.from({ length: 20 }, (_, i) => job(`round${round}-job${i}`));
      const [mine, theirs] = await Promise.all([
        registerJobs(test.database, names, T1),
        registerJobs(other, [...names].reverse(), T2),
      ]);
      expect(mine.size).toBe(20);
      expect(theirs).toEqual(mine);
      const [row] = await rows<{ times: number }>(
        test.database.db,
        sql`select count(distinct first_seen)::int as times from jobs where name like ${`round${round}-%`}`,
      );
      expect(row?.times).toBe(1);
    }
  });
});
