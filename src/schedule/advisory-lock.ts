// "One replica at a time" for the website loop: a PostgreSQL advisory lock held by a transaction for as long
// as the work runs, released by commit or by the connection dying with its process. PGlite has one process
// (its folder lock refuses a second), so there the work simply runs.
import { sql } from "drizzle-orm";
import type { Database } from "../db/client.js";

/** Advisory lock keys (two-key form); the first is topsync's space, shared with the run liveness locks. */
export const WEBSITES_LOCK: readonly [number, number] = [7263, 2];

/** `lostLock`: why the lock's session ended before the body did (the body ran to its end without the lock). */
export type Locked<T> = { locked: true; value: T; lostLock?: string } | { locked: false };

/**
 * Runs `body` while holding the lock; `{locked: false}` at once when another session holds it. The session that
 * holds the lock may end under the body (a database blip, an idle-transaction timeout): postgres.js then rejects the
 * transaction at once while the body goes on working, so the body is waited for, and its result stands (with
 * `lostLock`); a failure of the body itself is thrown.
 */
export async function withTryLock<T>(
  database: Database,
  key: readonly [number, number],
  body: () => Promise<T>,
): Promise<Locked<T>> {
  if (database.kind === "pglite") return { locked: true, value: await body() };
  let running: Promise<T> | undefined;
  try {
    return await database.transaction(async (tx): Promise<Locked<T>> => {
      const [row] = await tx.all<{ got: boolean }>(
        sql`select pg_try_advisory_xact_lock(${key[0]}::int, ${key[1]}::int) as got`,
      );
      if (!row?.got) return { locked: false };
      running = body();
      return { locked: true, value: await running };
    });
  } catch (error) {
    if (!running) throw error;
    return { locked: true, value: await running, lostLock: (error as Error).message };
  }
}
