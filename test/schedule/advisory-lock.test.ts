// withTryLock on PostgreSQL (the lock of `purchases prune`, `websites apply` and the daemon's website pass): one
// holder at a time, and a body that outlives its lock's session (a database blip ends it) keeps its result rather
// than being reported failed while it goes on working.
import { sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import { withTryLock } from "../../src/schedule/advisory-lock.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";

const KEY: readonly [number, number] = [7263, 99];

describe("withTryLock (postgres)", () => {
  let test: TestDatabase;
  beforeEach(async () => {
    test = await openTestDatabase("postgres");
  });
  afterEach(() => test.drop());

  it("a second holder is refused while the first holds it; a body whose lock session ended under it keeps its result", async () => {
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });
    let started!: () => void;
    const inBody = new Promise<void>((resolve) => {
      started = resolve;
    });
    const first = withTryLock(test.database, KEY, async () => {
      started();
      await finished;
      return "done";
    });
    await inBody;
    expect(await withTryLock(test.database, KEY, async () => "second")).toEqual({ locked: false });
    // The session holding the lock waits in its transaction while the body works: the database ends it.
    const ended = await rows<{ ended: boolean }>(
      test.database.db,
      sql`select pg_terminate_backend(pid) as ended from pg_stat_activity
          where datname = current_database() and state = 'idle in transaction' and pid <> pg_backend_pid()`,
    );
    expect(ended.map((e) => e.ended)).toEqual([true]);
    finish();
    expect(await first).toEqual({ locked: true, value: "done", lostLock: expect.any(String) });
    // A failure of the body itself is still thrown.
    await expect(
      withTryLock(test.database, KEY, async () => {
        throw new Error("the body failed");
      }),
    ).rejects.toThrow("the body failed");
  });
});
