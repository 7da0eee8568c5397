// The sessions topsync opens on PostgreSQL carry their settings: JIT off on every pool (a generic plan over a
// large ledger would otherwise be compiled at every execution: 25-35 ms per claim on 10,000,000 purchases), and
// the hot path's planner settings on the pool of ledger statements only.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openDatabase, rows } from "../../src/db/client.js";
import { createPostgresDatabase } from "../helpers/db.js";

type Setting = { jit: string; random_page_cost: string; plan_cache_mode: string; application_name: string };
const SHOW = sql`select current_setting('jit') as jit, current_setting('random_page_cost') as random_page_cost,
  current_setting('plan_cache_mode') as plan_cache_mode, current_setting('application_name') as application_name`;

describe("PostgreSQL sessions", () => {
  let created: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let database: Database;
  beforeAll(async () => {
    created = await createPostgresDatabase();
    database = await openDatabase({ url: created.url, maxConnections: 2 });
  });
  afterAll(async () => {
    await database?.close();
    await created?.drop();
  });

  it("have JIT off on both pools and in transactions, whatever the server's default", async () => {
    const [server] = await rows<{ jit: string }>(
      database.db,
      sql`select setting as jit from pg_settings where name = 'jit'`,
    );
    expect(server?.jit).toBeDefined();
    const [commands] = await rows<Setting>(database.db, SHOW);
    const [hot] = await database.all<Setting>(SHOW);
    const [inTransaction] = await database.transaction((tx) => tx.all<Setting>(SHOW));
    for (const session of [commands, hot, inTransaction]) {
      expect(session?.jit).toBe("off");
      expect(session?.application_name).toBe("topsync");
    }
    // the hot path's planner settings stay on its own pool
    expect([hot?.random_page_cost, hot?.plan_cache_mode]).toEqual(["1.1", "force_generic_plan"]);
    expect(commands?.plan_cache_mode).toBe("auto");
  });

  it("warm opens the run lock's session ahead: the lock is then held on it, and nothing is left open at close", async () => {
    const own = await createPostgresDatabase();
    const other = await openDatabase({ url: own.url, maxConnections: 1 });
    const name = new URL(own.url).pathname.slice(1);
    const backends = async () =>
      (
        await rows<{ n: number }>(
          database.db,
          sql`select count(*)::int as n from pg_stat_activity where datname = ${name}`,
        )
      )[0]!.n;
    try {
      other.warm();
      other.warm(); // a second call opens nothing more
      // the pool's connection (opened by openDatabase), the ledger statements' connection and the spare session
      await expect.poll(backends, { timeout: 5000 }).toBe(3);
      const release = await other.holdRunLock("warm-run");
      expect(await other.isRunAlive("warm-run")).toBe(true);
      expect(await backends()).toBe(3); // the lock is held on the spare: no new session
      await release();
      expect(await other.isRunAlive("warm-run")).toBe(false);
      other.warm(); // a spare never used is closed with the database
      await expect.poll(backends, { timeout: 5000 }).toBe(3);
    } finally {
      await other.close();
    }
    await expect.poll(backends, { timeout: 5000 }).toBe(0);
    await own.drop();
  });
});
