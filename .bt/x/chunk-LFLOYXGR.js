import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  rows
} from "./chunk-BH4POYA2.js";
import {
  sql
} from "./chunk-FBKOPLBK.js";

// dist/db/migrate.js
import { readFileSync } from "node:fs";
var MIGRATIONS = new URL("../../drizzle/", import.meta.url);
var LOCK_KEY = 7263541001;
function migrationTags() {
  const journal = JSON.parse(readFileSync(new URL("meta/_journal.json", MIGRATIONS), "utf8"));
  return journal.entries.sort((a, b) => a.idx - b.idx).map((e) => e.tag);
}
async function migrate(db, tags = migrationTags()) {
  const applied = [];
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${LOCK_KEY})`);
    await tx.execute(sql`create table if not exists topsync_migrations (tag text primary key, applied_at timestamptz not null default now())`);
    const done = new Set((await rows(tx, sql`select tag from topsync_migrations`)).map((r) => r.tag));
    for (const tag of tags) {
      if (done.has(tag))
        continue;
      const text = readFileSync(new URL(`${tag}.sql`, MIGRATIONS), "utf8");
      for (const statement of text.split("--> statement-breakpoint")) {
        if (statement.trim() !== "")
          await tx.execute(sql.raw(statement));
      }
      await tx.execute(sql`insert into topsync_migrations (tag) values (${tag})`);
      applied.push(tag);
    }
  });
  return applied;
}
async function pendingMigrations(db) {
  const exists = await rows(db, sql`select to_regclass('topsync_migrations') is not null as present`);
  if (!exists[0]?.present)
    return migrationTags();
  const done = new Set((await rows(db, sql`select tag from topsync_migrations`)).map((r) => r.tag));
  return migrationTags().filter((tag) => !done.has(tag));
}

export {
  migrate,
  pendingMigrations
};
