// Applies the committed drizzle-kit migrations in order, once, under an advisory lock so replicas starting
// together do not race. drizzle's own migrator has no lock; this one is the same files and a journal table.
import { readFileSync } from "node:fs";
import { sql } from "drizzle-orm";
import { packageRoot } from "../package-root.js";
import { type Db, rows } from "./client.js";
import { sqlState } from "./sql-state.js";

const MIGRATIONS = new URL("drizzle/", packageRoot(import.meta.url));
const LOCK_KEY = 7_263_541_001;

interface Journal {
  entries: Array<{ idx: number; tag: string }>;
}

export function migrationTags(): string[] {
  const journal = JSON.parse(readFileSync(new URL("meta/_journal.json", MIGRATIONS), "utf8")) as Journal;
  return journal.entries.sort((a, b) => a.idx - b.idx).map((e) => e.tag);
}

/** Applies what is missing of `tags` (every migration unless told), in order; returns the tags applied now. */
export async function migrate(db: Db, tags: readonly string[] = migrationTags()): Promise<string[]> {
  // Up to date, the common case: said by two reads, without the lock every replica would queue on.
  const done = await appliedTags(db);
  if (done && tags.every((tag) => done.has(tag))) return [];
  const applied: string[] = [];
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${LOCK_KEY})`);
    await tx.execute(
      sql`create table if not exists topsync_migrations (tag text primary key, applied_at timestamptz not null default now())`,
    );
    const done = new Set(
      (await rows<{ tag: string }>(tx as unknown as Db, sql`select tag from topsync_migrations`)).map(
        (r) => r.tag,
      ),
    );
    for (const tag of tags) {
      if (done.has(tag)) continue;
      const text = readFileSync(new URL(`${tag}.sql`, MIGRATIONS), "utf8");
      for (const statement of text.split("--> statement-breakpoint")) {
        if (statement.trim() !== "") await tx.execute(sql.raw(statement));
      }
      await tx.execute(sql`insert into topsync_migrations (tag) values (${tag})`);
      applied.push(tag);
    }
  });
  return applied;
}

/** Tags in the journal that the database has not applied (empty when up to date). */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const done = await appliedTags(db);
  return migrationTags().filter((tag) => !done?.has(tag));
}

/**
 * The tags the database has applied; undefined when it has no journal table yet. One statement, since every command
 * that opens the ledger asks: a database without the table answers it with "undefined table" (SQLSTATE 42P01).
 */
async function appliedTags(db: Db): Promise<Set<string> | undefined> {
  try {
    return new Set(
      (await rows<{ tag: string }>(db, sql`select tag from topsync_migrations`)).map((r) => r.tag),
    );
  } catch (error) {
    if (sqlState(error) === "42P01") return undefined;
    throw error;
  }
}
