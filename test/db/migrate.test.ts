import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { openDatabase, rows } from "../../src/db/client.js";
import { migrate, migrationTags, pendingMigrations } from "../../src/db/migrate.js";
import { createPostgresDatabase } from "../helpers/db.js";

describe("migrations", () => {
  it("apply once on PostgreSQL even when several processes start together", async () => {
    const created = await createPostgresDatabase();
    const handles = await Promise.all(
      [1, 2, 3].map(() => openDatabase({ url: created.url, maxConnections: 2 })),
    );
    try {
      const applied = await Promise.all(handles.map((h) => migrate(h.db)));
      expect(applied.flat()).toEqual(migrationTags());
      expect(await pendingMigrations(handles[0]!.db)).toEqual([]);
      const tables = await rows<{ name: string }>(
        handles[0]!.db,
        sql`select table_name as name from information_schema.tables where table_schema = 'public' order by 1`,
      );
      expect(tables.map((t) => t.name)).toEqual(
        expect.arrayContaining([
          "purchases",
          "purchase_events",
          "purchase_requests",
          "schedule_fires",
          "topsync_migrations",
        ]),
      );
    } finally {
      await Promise.all(handles.map((h) => h.close()));
      await created.drop();
    }
  });

  it("apply on the embedded database and report nothing pending after", async () => {
    const database = await openDatabase({ pgliteDir: "memory://" });
    try {
      expect(await pendingMigrations(database.db)).toEqual(migrationTags());
      expect(await migrate(database.db)).toEqual(migrationTags());
      expect(await migrate(database.db)).toEqual([]);
    } finally {
      await database.close();
    }
  });

  it("upgrade a ledger that already has history, keeping every event and its order", async () => {
    const database = await openDatabase({ pgliteDir: "memory://" });
    try {
      // The database as an earlier release left it: every migration but the last applied, with history in it.
      const tags = migrationTags();
      expect(await migrate(database.db, tags.slice(0, -1))).toEqual(tags.slice(0, -1));
      await database.db.execute(
        sql`insert into purchases (request_key, source, network, phone) values ('k1', 'cli', 'MTN', '08031234567'), ('k2', 'cli', 'MTN', '08031234568')`,
      );
      await database.db.execute(
        sql`insert into purchase_events (purchase_id, actor, from_state, to_state)
            select p.id, 'test', s.f, s.t from purchases p
            cross join (values (1, null, 'queued'), (2, 'queued', 'submitting'), (3, 'submitting', 'submitted')) s(n, f, t)
            order by p.id, s.n`,
      );

      expect(await migrate(database.db)).toEqual(tags.slice(-1));

      const history = await rows<{ purchase_id: number; to_state: string }>(
        database.db,
        sql`select e.purchase_id, e.to_state from purchase_events e join purchases p on p.id = e.purchase_id
            where p.request_key = 'k2' order by e.purchase_id, e.id`,
      );
      expect(history.map((e) => e.to_state)).toEqual(["queued", "submitting", "submitted"]);
      const count = await rows<{ n: number }>(
        database.db,
        sql`select count(*)::int as n from purchase_events`,
      );
      expect(count[0]?.n).toBe(6);
      const key = await rows<{ columns: string }>(
        database.db,
        sql`select pg_get_constraintdef(oid) as columns from pg_constraint
            where conrelid = 'purchase_events'::regclass and contype = 'p'`,
      );
      expect(key.map((k) => k.columns)).toEqual(["PRIMARY KEY (purchase_id, id)"]);
      // New events still get ids of their own after the upgrade.
      await database.db.execute(
        sql`insert into purchase_events (purchase_id, actor, to_state) select id, 'test', 'succeeded' from purchases where request_key = 'k1'`,
      );
      const ids = await rows<{ id: number }>(database.db, sql`select id from purchase_events order by id`);
      expect(new Set(ids.map((r) => Number(r.id))).size).toBe(7);
    } finally {
      await database.close();
    }
  });
});
