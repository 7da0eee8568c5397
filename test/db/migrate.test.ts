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
});
