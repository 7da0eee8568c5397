// The report's rollups (migrations 0006, 0012 and 0013, schema.ts): the purchases of every UTC day that has been over
// for an hour, written whole per day by `topsync_seal_rollups` with narrower sums per report section, and re-written
// when a later change touches a sealed day (a late settlement, a requeue, a prune, an edit by hand: the ledger's
// triggers mark the day, each transaction with a mark of its own). Nothing on the purchase hot path writes them: a
// report reads the sealed days from here and today (and yesterday, in the first hour of a day) from the purchases
// themselves. The daemon seals every hour, `purchases run` and `purchases prune` before they finish.
import { sql } from "drizzle-orm";
import { type Executor, rows } from "../db/client.js";

/**
 * Seals the days over for an hour (by the database's clock) that are not sealed yet, and the sealed days changed
 * since; returns how many days it wrote. Safe beside any number of writers, who never wait for it, and other sealers,
 * who take turns.
 */
export async function sealLedgerRollups(db: Executor): Promise<number> {
  const [row] = await rows<{ days: number }>(db, sql`select topsync_seal_rollups(now()) as days`);
  return Number(row?.days ?? 0);
}

/** Where the rollups stand: days before `sealedUntil` are sealed, except the days in `dirty` (changed since), each once. */
export interface RollupState {
  sealedUntil: Date | null;
  dirty: Date[];
}

export async function readRollupState(db: Executor): Promise<RollupState> {
  const [row] = await rows<{ sealed: string | null; dirty: string | null }>(
    db,
    sql`select (select value ->> 'sealed_until' from kv where key = 'rollups') as sealed,
          (select string_agg(to_char(day at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), ',' order by day)
           from (select distinct day from purchase_rollup_dirty) marked) as dirty`,
  );
  return {
    sealedUntil: row?.sealed ? new Date(row.sealed) : null,
    dirty: row?.dirty ? row.dirty.split(",").map((day) => new Date(day)) : [],
  };
}
