// The transition batcher: transitions go together in few statements, each caller learns whether its own row
// moved, and two transitions of one purchase never share a statement.
import { type SQL, sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Queryable, rows } from "../../src/db/client.js";
import { sqlState } from "../../src/db/sql-state.js";
import { TransitionBatcher } from "../../src/purchases/batcher.js";
import type { Transition } from "../../src/purchases/ledger.js";
import { openTestDatabase, queueTestPurchases, type TestDatabase } from "../helpers/db.js";

describe("transition batcher", () => {
  let test: TestDatabase;
  let statements: number;
  let counting: Queryable;
  let ids: number[];

  beforeEach(async () => {
    test = await openTestDatabase("pglite");
    statements = 0;
    counting = {
      all: <T>(statement: SQL) => {
        statements++;
        return test.database.all<T>(statement);
      },
    };
    ids = await queueTestPurchases(test.database.db, 120, "b");
  });
  afterEach(() => test.drop());

  const cancel = (id: number, from: Transition["from"] = ["queued"]): Transition => ({
    id,
    from,
    to: "cancelled",
    set: { settled_at: new Date() },
    actor: "test",
    reason: "batch",
  });

  async function stateCounts() {
    const found = await rows<{ state: string; n: number }>(
      test.database.db,
      sql`select state, count(*)::int as n from purchases group by state`,
    );
    return Object.fromEntries(found.map((row) => [row.state, row.n]));
  }

  it("gathers a trickle into a statement per gatherMs at most, not one per transition", async () => {
    const gatherMs = 20;
    const batcher = new TransitionBatcher(counting, { gatherMs });
    const moves: Promise<unknown>[] = [];
    const started = performance.now();
    for (const id of ids.slice(0, 30)) {
      moves.push(batcher.move(cancel(id)));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const moved = await Promise.all(moves);
    const elapsed = performance.now() - started;
    expect(moved.every((m) => m !== undefined)).toBe(true);
    // A batch goes once its oldest transition has waited gatherMs, and the next batch's oldest came after it went:
    // statements are about gatherMs apart however slow the machine makes the trickle (half of it is the bound, as
    // timers round to whole milliseconds). On an idle machine the 30 take some 30-60 ms: 2 or 3 statements.
    expect(statements).toBeLessThanOrEqual(Math.max(1, Math.floor(elapsed / (gatherMs / 2))));
    expect((await stateCounts()).cancelled).toBe(30);
  });

  it("writes a full batch at once and tells each caller whether its row moved", async () => {
    const batcher = new TransitionBatcher(counting, { fullBatch: 50, gatherMs: 60_000 });
    const started = performance.now();
    const wrongState = batcher.move(cancel(ids[0] as number, ["submitting"]));
    const rest = ids.slice(1, 50).map((id) => batcher.move(cancel(id)));
    expect(await wrongState).toBeUndefined();
    const moved = await Promise.all(rest);
    expect(moved.map((m) => m?.from_state)).toEqual(Array(49).fill("queued"));
    expect(performance.now() - started).toBeLessThan(30_000); // did not wait for the gather
    expect(statements).toBe(1);
    expect(await stateCounts()).toEqual({ queued: 71, cancelled: 49 });
  });

  it("never puts two transitions of one purchase in one statement, and keeps their order", async () => {
    const batcher = new TransitionBatcher(counting, { gatherMs: 1 });
    const id = ids[0] as number;
    const first = batcher.move(cancel(id));
    const second = batcher.move({ ...cancel(id, ["cancelled"]), to: "queued", set: { settled_at: null } });
    expect((await first)?.from_state).toBe("queued");
    expect((await second)?.from_state).toBe("cancelled");
    expect(statements).toBe(2);
    const events = await rows<{ from_state: string; to_state: string }>(
      test.database.db,
      sql`select from_state, to_state from purchase_events where purchase_id = ${id} order by id`,
    );
    expect(events.slice(1)).toEqual([
      { from_state: "queued", to_state: "cancelled" },
      { from_state: "cancelled", to_state: "queued" },
    ]);
  });

  it("drain writes what waits without waiting for company", async () => {
    const batcher = new TransitionBatcher(counting, { gatherMs: 60_000 });
    const moving = batcher.move(cancel(ids[0] as number));
    await batcher.drain();
    expect(await moving).toBeDefined();
    expect(statements).toBe(1);
  });

  it("a batch refused for what one transition carries is written again one by one: only that one fails", async () => {
    const batcher = new TransitionBatcher(counting, { fullBatch: 5, gatherMs: 60_000 });
    const good = ids.slice(0, 4).map((id) => batcher.move(cancel(id)));
    // numeric(14,2) cannot hold it (SQLSTATE 22003, a data exception): the same statement is refused every time.
    const bad = batcher.move({
      ...cancel(ids[4] as number),
      set: { settled_at: new Date(), amount: "1e20" },
    });
    expect(await bad.then(() => "moved", sqlState)).toBe("22003");
    expect((await Promise.all(good)).every((moved) => moved?.from_state === "queued")).toBe(true);
    // The refused batch, then each transition alone.
    expect(statements).toBe(6);
    expect(await stateCounts()).toEqual({ queued: 116, cancelled: 4 });
  });
});
