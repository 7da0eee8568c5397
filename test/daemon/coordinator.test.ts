// The database-backed RunCoordinator: one fire key elects one runner however many replicas ask, node-cron
// runs each slot once across two schedulers sharing it, and a database that cannot answer skips the fire.
import { sql } from "drizzle-orm";
import { createTask } from "node-cron";
import { afterEach, describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import { WEBSITES_JOB } from "../../src/purchases/fire-ledger.js";
import { FireCoordinator, fireKeyOf, jobTaskName, parseFireKey } from "../../src/schedule/coordinator.js";
import { DB_KINDS, openTestDatabase, type TestDatabase } from "../helpers/db.js";
import { waitFor } from "../helpers/wait.js";

describe("fire keys", () => {
  it("are the job's task name and the fire time, and read back", () => {
    const at = new Date("2026-12-01T07:00:00.000Z");
    const key = fireKeyOf(jobTaskName("staff-monthly"), at);
    expect(key).toBe("job:staff-monthly:2026-12-01T07:00:00.000Z");
    expect(parseFireKey(key)).toEqual({ key, job: "staff-monthly", fireTime: at });
    expect(parseFireKey("websites:2026-12-01T07:00:00.000Z").job).toBe(WEBSITES_JOB);
    expect(() => parseFireKey("other:2026-12-01T07:00:00.000Z")).toThrow("unexpected schedule fire key");
    expect(() => parseFireKey("job:x")).toThrow("unexpected schedule fire key");
  });
});

describe.each(DB_KINDS)("the fire coordinator on %s", (kind) => {
  let test: TestDatabase | undefined;
  afterEach(async () => {
    await test?.drop();
    test = undefined;
  });

  it("elects exactly one of ten replicas asking for the same fire, and closes it as done", async () => {
    test = await openTestDatabase(kind);
    const replicas = Array.from(
      { length: 10 },
      (_, i) => new FireCoordinator(test!.database.db, `replica-${i}`),
    );
    const key = fireKeyOf(jobTaskName("tick"), new Date("2026-03-01T10:00:00.000Z"));
    const elected = await Promise.all(replicas.map((r) => r.shouldRun(key)));
    expect(elected.filter(Boolean)).toHaveLength(1);
    const winner = replicas[elected.indexOf(true)]!;
    // only the claimer can close it
    await replicas[elected.indexOf(false)]!.onComplete(key);
    await winner.onComplete(key);
    const [row] = await rows<{ status: string; claimed_by: string; job_name: string }>(
      test.database.db,
      sql`select status, claimed_by, job_name from schedule_fires where fire_key = ${key}`,
    );
    expect(row).toEqual({ status: "done", claimed_by: `replica-${elected.indexOf(true)}`, job_name: "tick" });
    // a key is final: asking again later elects nobody
    expect(await replicas[0]!.shouldRun(key)).toBe(false);
  });

  it("runs every slot of a per-second schedule once across two node-cron schedulers", {
    timeout: 90_000,
  }, async () => {
    test = await openTestDatabase(kind);
    const ran: string[] = [];
    const tasks = ["a", "b"].map((replica) =>
      createTask("* * * * * *", (context) => void ran.push(`${replica}@${context.date.toISOString()}`), {
        name: jobTaskName("tick"),
        distributed: true,
        runCoordinator: new FireCoordinator(test!.database.db, replica),
      }),
    );
    for (const task of tasks) await task.start();
    await waitFor("three slots run", () => ran.length >= 3, { timeoutMs: 30_000 });
    for (const task of tasks) await task.destroy();
    // A fire claimed before the schedulers stopped still runs and is closed: wait until every claim is done.
    const fires = await waitFor(
      "every claimed fire run and done",
      async () => {
        const found = await rows<{ fire_key: string; status: string }>(
          test!.database.db,
          sql`select fire_key, status from schedule_fires order by fire_key`,
        );
        return found.length === ran.length && found.every((f) => f.status === "done") ? found : undefined;
      },
      { timeoutMs: 30_000, context: () => `ran: ${ran.join(", ")}` },
    );
    const slots = ran.map((r) => r.split("@")[1]);
    expect(new Set(slots).size).toBe(slots.length);
    expect(fires.map((f) => f.fire_key.slice("job:tick:".length)).sort()).toEqual([...slots].sort());
  });

  it("skips the fire (fail closed) when the database cannot answer", { timeout: 60_000 }, async () => {
    test = await openTestDatabase(kind);
    const coordinator = new FireCoordinator(test.database.db, "replica");
    await test.drop(); // the database is gone
    test = undefined;
    const ran: Date[] = [];
    const skipped: string[] = [];
    const task = createTask("* * * * * *", (context) => void ran.push(context.date), {
      name: jobTaskName("tick"),
      distributed: true,
      runCoordinator: coordinator,
      logger: { info() {}, warn() {}, error() {}, debug() {} },
    });
    task.on("execution:skipped", (context) => void skipped.push(context.reason ?? ""));
    await task.start();
    await waitFor("a fire skipped", () => skipped.length >= 1, { timeoutMs: 30_000 });
    await task.destroy();
    expect(ran).toEqual([]);
    expect(new Set(skipped)).toEqual(new Set(["coordinator-error"]));
  });
});
