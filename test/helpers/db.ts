// Databases for tests: a fresh PostgreSQL database per call (dropped afterwards) or an in-memory PGlite,
// both migrated, so one suite runs against both homes of the ledger.
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { type Database, type Db, openDatabase, rows } from "../../src/db/client.js";
import { migrate } from "../../src/db/migrate.js";
import { insertPurchases } from "../../src/purchases/ledger.js";

export const SERVER_URL = process.env.TEST_DATABASE_SERVER ?? "postgres://postgres@127.0.0.1:5432";

export type DbKind = "postgres" | "pglite";
export const DB_KINDS: DbKind[] = ["postgres", "pglite"];

export interface TestDatabase {
  database: Database;
  url: string; // "" for PGlite
  drop(): Promise<void>;
}

/** A new empty PostgreSQL database; returns its URL and a function that drops it. */
export async function createPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `topsync_t_${randomBytes(6).toString("hex")}`;
  const admin = postgres(`${SERVER_URL}/postgres`, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  return {
    url: `${SERVER_URL}/${name}`,
    drop: async () => {
      const again = postgres(`${SERVER_URL}/postgres`, { max: 1, onnotice: () => {} });
      await again.unsafe(`drop database if exists ${name} with (force)`);
      await again.end();
    },
  };
}

export async function openTestDatabase(kind: DbKind): Promise<TestDatabase> {
  if (kind === "pglite") {
    const database = await openDatabase({ pgliteDir: "memory://" });
    await migrate(database.db);
    return { database, url: "", drop: () => database.close() };
  }
  const created = await createPostgresDatabase();
  const database = await openDatabase({ url: created.url });
  await migrate(database.db);
  return {
    database,
    url: created.url,
    drop: async () => {
      await database.close();
      await created.drop();
    },
  };
}

/**
 * Queues `count` purchases of plan 102 on MTN (keys `<prefix>:<n>`, phones 0803 1000000 + n) and returns their ids
 * in order.
 */
export async function queueTestPurchases(db: Db, count: number, prefix: string): Promise<number[]> {
  await insertPurchases(
    db,
    Array.from({ length: count }, (_, i) => ({
      request_key: `${prefix}:${i}`,
      source: "buy",
      network: "MTN",
      plan_id: "102",
      phone: `0803${String(1_000_000 + i)}`,
      ported: false,
    })),
    "test",
  );
  const found = await rows<{ id: number | string }>(
    db,
    sql`select id from purchases where request_key like ${`${prefix}:%`} order by id`,
  );
  return found.map((row) => Number(row.id));
}
