// Job states in the ledger on both databases, through the core functions the CLI and the console call: a change
// is one event with its actor and reason, repeating it changes nothing, the fire claim of a stopped job records a
// missed fire (and its notification) instead of electing a runner, and a pause writes its run_failed notification
// in the same statement.
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import {
  activeAt,
  pauseJob,
  readJobEvents,
  readJobState,
  resumeJob,
  suspendJob,
} from "../../src/purchases/job-states.js";
import { FireCoordinator, fireKeyOf, jobTaskName } from "../../src/schedule/coordinator.js";
import { DB_KINDS, openTestDatabase, type TestDatabase } from "../helpers/db.js";

// Opening and migrating an embedded database takes seconds on a busy machine.
describe.each(DB_KINDS)("job states on %s", { timeout: 90_000 }, (kind) => {
  let test: TestDatabase | undefined;
  afterEach(async () => {
    await test?.drop();
    test = undefined;
  });

  it("suspends and resumes once each, with the actor and reason in the job's history", async () => {
    test = await openTestDatabase(kind);
    const db = test.database.db;
    const first = await suspendJob(db, "promo", { actor: "console:ada", reason: "stop the campaign" });
    expect(first).toMatchObject({ changed: true, from: "active" });
    expect(first.status).toMatchObject({
      state: "suspended",
      note: "stop the campaign",
      changedBy: "console:ada",
    });
    // a form submitted twice acts once
    const again = await suspendJob(db, "promo", { actor: "console:ada", reason: "stop the campaign" });
    expect(again.changed).toBe(false);
    expect((await resumeJob(db, "promo", { actor: "cli:bola", reason: "go" })).changed).toBe(true);
    expect((await resumeJob(db, "promo", { actor: "cli:bola" })).changed).toBe(false);
    expect((await readJobState(db, "promo"))?.state).toBe("active");
    const events = await readJobEvents(db, { job: "promo", since: new Date(0) });
    expect(events.map((e) => [e.actor, e.from, e.to, e.reason])).toEqual([
      ["console:ada", "active", "suspended", "stop the campaign"],
      ["cli:bola", "suspended", "active", "go"],
    ]);
    const before = new Date(events[0]!.at.getTime() - 1);
    const between = new Date(events[1]!.at.getTime() - 1);
    const after = new Date(events[1]!.at.getTime() + 1);
    const active = activeAt(events, "active");
    expect([active(before), active(between), active(after)]).toEqual([true, false, true]);
  });

  it("records a stopped job's fire as missed instead of electing a runner, and elects again once resumed", async () => {
    test = await openTestDatabase(kind);
    const db = test.database.db;
    const coordinator = new FireCoordinator(db, "replica-1");
    const at = (s: number) => fireKeyOf(jobTaskName("tick"), new Date(Date.UTC(2026, 2, 1, 10, 0, s)));
    expect(await coordinator.shouldRun(at(0))).toBe(true);
    await suspendJob(db, "tick", { actor: "cli:ada", reason: "maintenance" });
    expect(await coordinator.shouldRun(at(2))).toBe(false);
    expect(await new FireCoordinator(db, "replica-2").shouldRun(at(2))).toBe(false);
    const [skipped] = await rows<{ status: string; reason: string }>(
      db,
      sql`select status, reason from schedule_fires where fire_key = ${at(2)}`,
    );
    expect(skipped).toEqual({ status: "skipped", reason: "the job is suspended: maintenance" });
    const notices = await rows<{ subject: string }>(
      db,
      sql`select subject from notification_outbox where trigger = 'missed_fire'`,
    );
    expect(notices).toEqual([{ subject: `fire:${at(2)}` }]);
    await resumeJob(db, "tick", { actor: "cli:ada" });
    expect(await coordinator.shouldRun(at(4))).toBe(true);
  });

  it("pauses an active job with its cause, purchases and a run_failed notification; a suspended one stays suspended", async () => {
    test = await openTestDatabase(kind);
    const db = test.database.db;
    await resumeJob(db, "flood", { actor: "cli:ada" }); // makes the job's row; it was active
    const cause = {
      actor: "run:1",
      run: "r-1",
      cause: "3 purchases in a row with an unknown outcome",
      purchases: [7, 8, 9],
    };
    expect(await pauseJob(db, "flood", cause)).toBe(true);
    expect(await pauseJob(db, "flood", cause)).toBe(false);
    const state = await readJobState(db, "flood");
    expect(state).toMatchObject({ state: "paused", changedBy: "run:1" });
    expect(state?.note).toBe("3 purchases in a row with an unknown outcome; purchases 7, 8, 9");
    const notices = await rows<{ subject: string; facts: { job: string; run: string; reason: string } }>(
      db,
      sql`select subject, facts from notification_outbox where trigger = 'run_failed'`,
    );
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ subject: "job:flood", facts: { job: "flood", run: "r-1" } });
    await suspendJob(db, "other", { actor: "cli:ada", reason: "x" });
    expect(await pauseJob(db, "other", cause)).toBe(false);
    expect((await readJobState(db, "other"))?.state).toBe("suspended");
  });
});
