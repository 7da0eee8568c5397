import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { openDatabase, rows } from "../../src/db/client.js";
import { migrate, migrationTags, pendingMigrations } from "../../src/db/migrate.js";
import { createPostgresDatabase, DB_KINDS, type DbKind } from "../helpers/db.js";

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

/** A database opened without migrations, of either kind, and how to be rid of it. */
async function bareDatabase(kind: DbKind) {
  if (kind === "pglite") {
    const database = await openDatabase({ pgliteDir: "memory://" });
    return { database, drop: () => database.close() };
  }
  const created = await createPostgresDatabase();
  const database = await openDatabase({ url: created.url });
  return {
    database,
    drop: async () => {
      await database.close();
      await created.drop();
    },
  };
}

describe.each(DB_KINDS)("a reference becomes one purchase's (0007_reference_unique), on %s", (kind) => {
  it("purchases already sharing a reference are flagged reference_clash for a person, not refused: one keeps it, no state or budget moves", async () => {
    const { database, drop } = await bareDatabase(kind);
    try {
      const tags = migrationTags();
      const before = tags.slice(0, tags.indexOf("0006_ledger_rollups") + 1);
      await migrate(database.db, before);
      // A settled by the proof of B's transaction (no answer of its own), and B by its own answer; C and D both
      // settled by proof with one reference; E alone.
      await database.db.execute(
        sql`insert into purchases (request_key, source, network, phone, state, reference, submitted_at, amount,
              budget_day, note, next_verify_at)
            values
              ('a', 'buy', 'MTN', '08031234567', 'succeeded', 'R-SHARED', null, 305, '2026-05-01', null, null),
              ('b', 'buy', 'MTN', '08031234567', 'succeeded', 'R-SHARED', now(), 305, '2026-05-01',
                'price_mismatch: charged 310.00', null),
              ('c', 'buy', 'MTN', '08031234568', 'unverified', 'R-TWICE', null, 305, '2026-05-01', null, now()),
              ('d', 'buy', 'MTN', '08031234568', 'succeeded', 'R-TWICE', null, 305, '2026-05-01', null, null),
              ('e', 'buy', 'MTN', '08031234569', 'succeeded', 'R-ALONE', now(), 305, '2026-05-01', null, null)`,
      );
      await database.db.execute(sql`insert into budget_days (day, committed) values ('2026-05-01', 1525)`);
      const ids = async () =>
        Object.fromEntries(
          (
            await rows<{ request_key: string; id: number }>(
              database.db,
              sql`select request_key, id::int as id from purchases`,
            )
          ).map((r) => [r.request_key, r.id]),
        );
      const id = await ids();

      expect(await migrate(database.db)).toEqual(tags.slice(before.length));

      const after = await rows<{
        request_key: string;
        state: string;
        reference: string | null;
        note: string | null;
        next_verify_at: Date | null;
      }>(
        database.db,
        sql`select request_key, state, reference, note, next_verify_at from purchases order by id`,
      );
      expect(after.map((r) => [r.request_key, r.state, r.reference])).toEqual([
        ["a", "succeeded", null],
        ["b", "succeeded", "R-SHARED"], // its own purchase answer carried it
        ["c", "unverified", "R-TWICE"], // neither had an answer of its own: the first keeps it
        ["d", "succeeded", null],
        ["e", "succeeded", "R-ALONE"],
      ]);
      const note = (key: string) => after.find((r) => r.request_key === key)!.note;
      expect(note("a")).toBe(
        `reference_clash: reference R-SHARED was on this purchase and on purchase ${id.b}; purchase ${id.b} keeps it, and this one no longer carries it: one provider transaction cannot be two purchases, a person decides which purchase it is`,
      );
      expect(note("b")).toBe(
        `reference_clash: reference R-SHARED is also on purchase ${id.a}, which gave it up to this one when a reference came to belong to one purchase: one provider transaction cannot be two purchases, a person decides which purchase it is`,
      );
      expect(note("d")).toContain(`purchase ${id.c} keeps it`);
      expect(note("e")).toBeNull();
      expect(after.find((r) => r.request_key === "d")!.next_verify_at).toBeNull();
      const events = await rows<{
        purchase_id: number;
        actor: string;
        from_state: string;
        to_state: string;
        reason: string;
      }>(
        database.db,
        sql`select purchase_id::int as purchase_id, actor, from_state, to_state, reason from purchase_events order by purchase_id`,
      );
      const flag = (purchase: number | undefined, state: string) => [
        purchase,
        "migration:0007_reference_unique",
        state,
        state,
      ];
      expect(events.map((e) => [e.purchase_id, e.actor, e.from_state, e.to_state])).toEqual([
        flag(id.a, "succeeded"),
        flag(id.b, "succeeded"),
        flag(id.c, "unverified"),
        flag(id.d, "succeeded"),
      ]);
      expect(events[1]!.reason).toBe(`${note("b")} (its note before: price_mismatch: charged 310.00)`);
      // Counted as needing a person, and the budget as it was.
      const [flagged] = await rows<{ n: number }>(
        database.db,
        sql`select coalesce(sum(purchases), 0)::int as n from purchase_state_counts where note_kind = 'reference_clash'`,
      );
      expect(flagged!.n).toBe(4);
      const [budget] = await rows<{ committed: string }>(
        database.db,
        sql`select committed::text as committed from budget_days where day = '2026-05-01'`,
      );
      expect(budget!.committed).toBe("1525.00");
      // From now on a reference is one purchase's.
      await expect(
        database.db.execute(sql`update purchases set reference = 'R-ALONE' where request_key = 'a'`),
      ).rejects.toThrow();
    } finally {
      await drop();
    }
  });
});
