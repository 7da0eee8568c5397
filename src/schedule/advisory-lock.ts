// "One replica at a time" for the website loop: a PostgreSQL advisory lock held by a transaction for as long
// as the work runs, released by commit or by the connection dying with its process. PGlite has one process
// (its folder lock refuses a second), so there the work simply runs.
import { sql } from "drizzle-orm";
import type { Database } from "../db/client.js";

/** Advisory lock keys (two-key form); the first is topsync's space, shared with the run liveness locks. */
export const WEBSITES_LOCK: readonly [number, number] = [7263, 2];

export type Locked<T> = { locked: true; value: T } | { locked: false };

/** Runs `body` while holding the lock; `{locked: false}` at once when another session holds it. */
export async function withTryLock<T>(
  database: Database,
  key: readonly [number, number],
  body: () => Promise<T>,
): Promise<Locked<T>> {
  if (database.kind === "pglite") return { locked: true, value: await body() };
  return database.transaction(async (tx) => {
    const [row] = await tx.all<{ got: boolean }>(
      sql`select pg_try_advisory_xact_lock(${key[0]}::int, ${key[1]}::int) as got`,
    );
    if (!row?.got) return { locked: false };
    return { locked: true, value: await body() };
  });
}
