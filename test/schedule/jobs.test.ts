// Schedules under the operator's hand, from the command line on PostgreSQL and the sandbox over HTTP: a suspended
// job's run refused without --force, a job paused by pause_on after N unknown outcomes (no N+1th purchase sent,
// the rest left queued), one bad phone pausing nothing, and a backfill that lists exactly the missing fires and
// their spend (sending nothing), buys exactly them, and buys nothing the second time.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Database, rows } from "../../src/db/client.js";
import { newKeyPair } from "../../src/plans/approvals.js";
import type { Sandbox } from "../../src/sandbox/index.js";
import { runCli } from "../helpers/cli.js";
import { writeConfigFile } from "../helpers/config.js";
import { openScheduleLedger, type ScheduleLedger } from "./helpers.js";

const PLAN = { network: "MTN", plan_id: "102" };
const DAY = 86_400_000;

let ledger: ScheduleLedger;
let sandbox: Sandbox;
let url: string;
let database: Database;

beforeAll(async () => {
  ledger = await openScheduleLedger(31);
  ({ sandbox, url, database } = ledger);
});

afterAll(() => ledger?.close());

beforeEach(() => {
  sandbox.setFaults({ endpoints: {} });
});

/** POSTs the reseller received: purchases sent (every mutating request goes to the purchase endpoint). */
function purchasePosts(): number {
  return sandbox.requests().filter((r) => r.service === "reseller" && r.method !== "GET").length;
}

function config(jobs: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}): string {
  return writeConfigFile(sandbox, url, { timezone: "UTC", purchases: jobs, ...extra }).file;
}

async function jobState(job: string): Promise<{ state: string; note: string | null } | undefined> {
  const [row] = await rows<{ state: string; note: string | null }>(
    database.db,
    sql`select state, note from jobs where name = ${job}`,
  );
  return row;
}

async function statesOf(job: string): Promise<Record<string, number>> {
  const found = await rows<{ state: string; n: string | number }>(
    database.db,
    sql`select state, count(*) as n from purchases where job_name = ${job} group by state`,
  );
  return Object.fromEntries(found.map((r) => [r.state, Number(r.n)]));
}

describe("jobs suspend and purchases run", () => {
  it("refuses a suspended job's run without --force and a reason, and runs it with them", async () => {
    const file = config([{ name: "promo", plan: PLAN, recipients: ["08031230001", "08031230002"] }]);
    const suspend = await runCli(["-c", file, "jobs", "suspend", "promo", "--reason", "campaign stopped"]);
    expect(suspend.code, suspend.stderr).toBe(0);
    expect(suspend.stdout).toContain("suspended");
    expect(await jobState("promo")).toEqual({ state: "suspended", note: "campaign stopped" });

    const posts = purchasePosts();
    const refused = await runCli(["-c", file, "purchases", "run", "--job", "promo", "--now"]);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain('job "promo" is suspended (campaign stopped)');
    expect(refused.stderr).toContain("--force --reason");
    const noReason = await runCli(["-c", file, "purchases", "run", "--job", "promo", "--now", "--force"]);
    expect(noReason.code).toBe(64);
    expect(purchasePosts()).toBe(posts);
    expect(await statesOf("promo")).toEqual({});

    const listed = await runCli(["-c", file, "--json", "jobs", "list"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({
        job: "promo",
        state: "suspended",
        note: "campaign stopped",
        missed_fires: 0,
      }),
    ]);

    const forced = await runCli([
      "-c",
      file,
      "purchases",
      "run",
      "--job",
      "promo",
      "--now",
      "--force",
      "--reason",
      "the CEO's own numbers",
    ]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(await statesOf("promo")).toEqual({ succeeded: 2 });
    expect(purchasePosts()).toBe(posts + 2);
    const events = await rows<{ actor: string; from_state: string; to_state: string; reason: string }>(
      database.db,
      sql`select actor, from_state, to_state, reason from job_events where job_name = 'promo' order by id`,
    );
    expect(events.map((e) => [e.from_state, e.to_state, e.reason])).toEqual([
      ["active", "suspended", "campaign stopped"],
      ["suspended", "suspended", "forced run: the CEO's own numbers"],
    ]);
    for (const e of events) expect(e.actor).toMatch(/^cli:/);
    // still suspended: the force was for that run only
    expect((await jobState("promo"))?.state).toBe("suspended");

    const resumed = await runCli(["-c", file, "jobs", "resume", "promo", "--reason", "back on"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((await jobState("promo"))?.state).toBe("active");
    const again = await runCli(["-c", file, "jobs", "resume", "promo"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("nothing changed");
  });

  it("plan lists a suspended job's fires as not bought, and costs nothing for them", async () => {
    const jobs = [
      { name: "quiet", schedule: "0 * * * *", plan: PLAN, recipients: ["08031230201"] },
      { name: "loud", schedule: "0 * * * *", plan: PLAN, recipients: ["08031230202"] },
    ];
    const file = config(jobs);
    expect((await runCli(["-c", file, "jobs", "suspend", "quiet", "--reason", "quiet hours"])).code).toBe(0);
    const plan = await runCli(["-c", file, "--json", "plan", "--window", "3h"]);
    expect(plan.code, plan.stderr).toBe(0);
    const report = JSON.parse(plan.stdout);
    const lines = report.purchases.jobs as Array<Record<string, unknown>>;
    expect(lines.find((j) => j.job === "quiet")).toMatchObject({
      state: "suspended",
      state_note: "quiet hours",
      fires_bought: false,
    });
    expect(lines.find((j) => j.job === "loud")).toMatchObject({ state: "active", fires_bought: true });
    const runs = report.purchases.runs as Array<{ job: string | null }>;
    expect(runs.some((r) => r.job === "loud")).toBe(true);
    expect(runs.some((r) => r.job === "quiet")).toBe(false);
  });

  it("does not buy, once resumed, the due fire that came while the job was suspended", async () => {
    // A daily fire between one and two hours ago, well within catch_up (6h); the job existed long before it.
    const hour = new Date(Date.now() - 3_600_000).getUTCHours();
    const fire = new Date(Math.floor((Date.now() - 3_600_000) / 3_600_000) * 3_600_000);
    const file = config([
      { name: "nightly", schedule: `0 ${hour} * * *`, plan: PLAN, recipients: ["08031230301"] },
    ]);
    expect(
      (await runCli(["-c", file, "jobs", "suspend", "nightly", "--reason", "paused for audit"])).code,
    ).toBe(0);
    // The suspension as it happened: half an hour before the fire, the job seen a day before.
    await database.all(
      sql`update jobs set first_seen = ${new Date(fire.getTime() - DAY).toISOString()}::timestamptz where name = 'nightly'`,
    );
    await database.all(
      sql`update job_events set at = ${new Date(fire.getTime() - 1_800_000).toISOString()}::timestamptz where job_name = 'nightly'`,
    );
    expect((await runCli(["-c", file, "jobs", "resume", "nightly"])).code).toBe(0);
    const posts = purchasePosts();
    const dry = await runCli(["-c", file, "--json", "purchases", "run", "--dry-run"]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain(`job nightly was suspended or paused at its fire ${fire.toISOString()}`);
    const run = await runCli(["-c", file, "purchases", "run"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`job nightly was suspended or paused at its fire ${fire.toISOString()}`);
    expect(await statesOf("nightly")).toEqual({});
    expect(purchasePosts()).toBe(posts);
    // Asked for by name, the fire is the operator's to buy.
    const named = await runCli([
      "-c",
      file,
      "purchases",
      "run",
      "--job",
      "nightly",
      "--fire-time",
      fire.toISOString(),
    ]);
    expect(named.code, named.stderr).toBe(0);
    expect(await statesOf("nightly")).toEqual({ succeeded: 1 });
  });

  it("refuses an unknown job and a suspension without a reason", async () => {
    const file = config([{ name: "promo", plan: PLAN, recipients: ["08031230001"] }]);
    const unknown = await runCli(["-c", file, "jobs", "suspend", "nope", "--reason", "x"]);
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toContain('no purchase job named "nope"');
    const blank = await runCli(["-c", file, "jobs", "suspend", "promo", "--reason", "  "]);
    expect(blank.code).toBe(64);
    // A reason pasted by mistake (a log) was kept whole in the job's history and printed whole by jobs list.
    const pasted = "x".repeat(501);
    for (const args of [
      ["jobs", "suspend", "promo", "--reason", pasted],
      ["jobs", "resume", "promo", "--reason", pasted],
      ["purchases", "run", "--job", "promo", "--now", "--force", "--reason", pasted],
    ]) {
      const long = await runCli(["-c", file, ...args]);
      expect([args[1], long.code]).toEqual([args[1], 64]);
      expect(long.stderr).toContain("--reason is 501 characters; at most 500");
    }
    const list = await runCli(["-c", file, "jobs", "list"]);
    expect(list.stdout).not.toContain("xxxxxxxxxx");
  });
});

describe("suspended: true in config", () => {
  it("suspends the job as config, refuses jobs resume while config says so, and lifts it when config no longer does", async () => {
    const job = { name: "held", plan: PLAN, recipients: ["08031230101"] };
    const suspended = config([{ ...job, suspended: true }]);
    const posts = purchasePosts();
    const refused = await runCli(["-c", suspended, "purchases", "run", "--job", "held", "--now"]);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain('job "held" is suspended (suspended: true in config)');
    expect(purchasePosts()).toBe(posts);
    const resume = await runCli(["-c", suspended, "jobs", "resume", "held"]);
    expect(resume.code).toBe(64);
    expect(resume.stderr).toContain("suspended: true");
    expect((await jobState("held"))?.state).toBe("suspended");

    const active = config([job]);
    const run = await runCli(["-c", active, "purchases", "run", "--job", "held", "--now"]);
    expect(run.code, run.stderr).toBe(0);
    expect(await statesOf("held")).toEqual({ succeeded: 1 });
    const events = await rows<{ actor: string; to_state: string }>(
      database.db,
      sql`select actor, to_state from job_events where job_name = 'held' order by id`,
    );
    expect(events).toEqual([
      { actor: "config", to_state: "suspended" },
      { actor: "config", to_state: "active" },
    ]);
  });
});

describe("pause_on", () => {
  it("pauses after consecutive_unknown purchases in a row: no further purchase is sent, the rest stay queued", async () => {
    sandbox.setFaults({ endpoints: { data: { rate500After: 1 } } });
    const recipients = Array.from({ length: 8 }, (_, i) => `0803222000${i}`);
    const file = config([{ name: "flood", plan: PLAN, recipients, pause_on: { consecutive_unknown: 3 } }]);
    const posts = purchasePosts();
    const debits = sandbox.debits().length;
    const run = await runCli(["-c", file, "purchases", "run", "--job", "flood", "--now"]);
    expect(run.stderr).toContain("job flood paused");
    // three purchases were sent (each debited, then answered 500): no fourth
    expect(purchasePosts() - posts).toBe(3);
    expect(sandbox.debits().length - debits).toBe(3);
    expect(await statesOf("flood")).toEqual({ in_doubt: 3, queued: 5 });
    const state = await jobState("flood");
    expect(state?.state).toBe("paused");
    expect(state?.note).toContain(
      "3 purchases in a row with an unknown outcome (pause_on.consecutive_unknown: 3)",
    );
    const inDoubt = await rows<{ id: string | number }>(
      database.db,
      sql`select id from purchases where job_name = 'flood' and state = 'in_doubt' order by id`,
    );
    for (const row of inDoubt) expect(state?.note).toContain(String(row.id));
    const notices = await rows<{ facts: { job: string; reason: string } }>(
      database.db,
      sql`select facts from notification_outbox where trigger = 'run_failed' and subject = 'job:flood'`,
    );
    expect(notices).toHaveLength(1);
    expect(notices[0]!.facts.reason).toContain("job paused");

    // a run while paused sends nothing; the queued rows wait for `jobs resume`
    sandbox.setFaults({ endpoints: {} });
    const idle = await runCli(["-c", file, "purchases", "run"]);
    expect(idle.code, idle.stderr).toBe(0);
    expect(purchasePosts() - posts).toBe(3);
    expect(await statesOf("flood")).toEqual({ in_doubt: 3, queued: 5 });
    const listed = JSON.parse((await runCli(["-c", file, "--json", "jobs", "list"])).stdout);
    expect(listed[0]).toMatchObject({ job: "flood", state: "paused" });
    const report = await runCli(["-c", file, "--json", "report", "--since", "1h"]);
    expect(report.code, report.stderr).toBe(0);
    expect(JSON.parse(report.stdout).schedules.state_changes).toContainEqual(
      expect.objectContaining({ job: "flood", from: "active", to: "paused" }),
    );

    expect((await runCli(["-c", file, "jobs", "resume", "flood"])).code).toBe(0);
    const after = await runCli(["-c", file, "purchases", "run"]);
    expect(after.code, after.stderr).toBe(0);
    expect(await statesOf("flood")).toEqual({ in_doubt: 3, succeeded: 5 });
  });

  it("counts unknown outcomes in a row across runs: a job whose every fire goes in_doubt pauses", async () => {
    sandbox.setFaults({ endpoints: { data: { rate500After: 1 } } });
    const recipients = ["08032221101", "08032221102"];
    const file = config([
      {
        name: "drip",
        schedule: "*/10 * * * *",
        plan: PLAN,
        recipients,
        pause_on: { consecutive_unknown: 3 },
      },
    ]);
    const posts = purchasePosts();
    // Two fires, each its own run of two purchases: each purchase's outcome unknown.
    const fires = [20, 10].map((minutes) => {
      const at = Math.floor((Date.now() - minutes * 60_000) / 600_000) * 600_000;
      return new Date(at).toISOString();
    });
    const first = await runCli(["-c", file, "purchases", "run", "--job", "drip", "--fire-time", fires[0]!]);
    expect(first.code, first.stderr).toBe(0);
    expect(await statesOf("drip")).toEqual({ in_doubt: 2 });
    expect((await jobState("drip"))?.state).toBe("active");
    const second = await runCli(["-c", file, "purchases", "run", "--job", "drip", "--fire-time", fires[1]!]);
    expect(second.stderr).toContain("job drip paused");
    // The third unknown in a row paused the job: no fourth purchase was sent.
    expect(purchasePosts() - posts).toBe(3);
    expect(await statesOf("drip")).toEqual({ in_doubt: 3, queued: 1 });
    const state = await jobState("drip");
    expect(state).toMatchObject({ state: "paused" });
    expect(state?.note).toContain("3 purchases in a row with an unknown outcome");
    // Resumed, the count starts again: the next run buys.
    sandbox.setFaults({ endpoints: {} });
    expect((await runCli(["-c", file, "jobs", "resume", "drip"])).code).toBe(0);
    expect(
      (await runCli(["-c", file, "purchases", "run", "--job", "drip", "--fire-time", fires[1]!])).code,
    ).toBe(0);
    expect(await statesOf("drip")).toEqual({ in_doubt: 3, succeeded: 1 });
  });

  it("a job paused and then taken out of the config is listed with its queue, and jobs resume takes it", async () => {
    sandbox.setFaults({ endpoints: { data: { rate500After: 1 } } });
    const recipients = ["08032231101", "08032231102", "08032231103", "08032231104"];
    const gone = { name: "gone", plan: PLAN, recipients, pause_on: { consecutive_unknown: 2 } };
    const file = config([gone]);
    const run = await runCli(["-c", file, "purchases", "run", "--job", "gone", "--now"]);
    expect(run.stderr).toContain("job gone paused");
    expect(await statesOf("gone")).toEqual({ in_doubt: 2, queued: 2 });
    sandbox.setFaults({ endpoints: {} });

    // Renamed in the config while paused: the ledger still holds "gone" paused, with two purchases queued.
    const renamed = config([{ ...gone, name: "gone-v2" }]);
    const listed = await runCli(["-c", renamed, "--json", "jobs", "list"]);
    expect(listed.code, listed.stderr).toBe(0);
    // (other tests of this file leave their own jobs stopped in the ledger)
    const mine = (text: string) =>
      (JSON.parse(text) as Array<{ job: string }>).filter((j) => j.job.startsWith("gone"));
    expect(mine(listed.stdout)).toEqual([
      expect.objectContaining({ job: "gone-v2", state: "active", in_config: true }),
      expect.objectContaining({ job: "gone", state: "paused", in_config: false, queued: 2 }),
    ]);
    const table = await runCli(["-c", renamed, "jobs", "list"]);
    expect(table.stdout).toContain("not in the config (2 queued)");

    const resumed = await runCli([
      "-c",
      renamed,
      "jobs",
      "resume",
      "gone",
      "--reason",
      "renamed; buy the rest",
    ]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain("its queued purchases are bought by the next purchases run");
    expect((await jobState("gone"))?.state).toBe("active");
    const after = await runCli(["-c", renamed, "purchases", "run"]);
    expect(after.code, after.stderr).toBe(0);
    expect(await statesOf("gone")).toEqual({ in_doubt: 2, succeeded: 2 });

    // Active and not in the config: nothing to resume, as for any name the config does not have.
    const unknown = await runCli(["-c", renamed, "jobs", "resume", "gone"]);
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toContain('no purchase job named "gone"');
    expect(mine((await runCli(["-c", renamed, "--json", "jobs", "list"])).stdout)).toHaveLength(1);
  });

  it("does not pause for one bad phone in a batch", async () => {
    const file = config([
      {
        name: "mixed",
        plan: PLAN,
        // a Glo number for an MTN plan: refused before any call (wrong_network)
        recipients: ["08034440001", "08054440003", "08034440002"],
        pause_on: {
          consecutive_unknown: 1,
          auth_failure: true,
          below_wallet_floor: true,
          provider_down: "1s",
        },
      },
    ]);
    const run = await runCli(["-c", file, "purchases", "run", "--job", "mixed", "--now"]);
    expect(run.code, run.stderr).toBe(0);
    expect(await statesOf("mixed")).toEqual({ succeeded: 2, rejected: 1 });
    expect((await jobState("mixed"))?.state).toBe("active");
  });

  it("pauses at the wallet floor and leaves the fire queued, instead of rejecting it row by row", async () => {
    const wallet = Number(sandbox.wallet());
    const file = config(
      [
        {
          name: "floor",
          plan: PLAN,
          recipients: ["08035550101", "08035550102", "08035550103"],
          pause_on: { below_wallet_floor: true },
        },
      ],
      // one purchase fits above the floor (the balance is known after the first answer)
      { budget: { min_wallet_balance: String(wallet - 305 - 305 - 100) } },
    );
    const run = await runCli(["-c", file, "purchases", "run", "--job", "floor", "--now"]);
    expect(run.stderr).toContain("job floor paused");
    const states = await statesOf("floor");
    expect(states.rejected ?? 0).toBe(0);
    expect(states.queued).toBeGreaterThan(0);
    expect((await jobState("floor"))?.note).toContain("pause_on.below_wallet_floor");
  });
});

describe("jobs backfill", () => {
  // Four daily fires at 08:00 UTC, all in the past: day 2 bought whole, day 3 for one recipient of two.
  const today = Math.floor(Date.now() / DAY) * DAY;
  const fire = (day: number) => new Date(today - (6 - day) * DAY + 8 * 3_600_000);
  const A = "08036660001";
  const B = "08036660002";
  const job = { name: "daily", schedule: "0 8 * * *", plan: PLAN, recipients: [A, B] };

  it("lists exactly the missing fires and recipients with their spend, sending nothing; buys exactly them; then nothing", async () => {
    const file = config([job]);
    const partial = config([{ ...job, recipients: [A] }]);
    const day2 = await runCli([
      "-c",
      file,
      "purchases",
      "run",
      "--job",
      "daily",
      "--fire-time",
      fire(2).toISOString(),
    ]);
    expect(day2.code, day2.stderr).toBe(0);
    const day3 = await runCli([
      "-c",
      partial,
      "purchases",
      "run",
      "--job",
      "daily",
      "--fire-time",
      fire(3).toISOString(),
    ]);
    expect(day3.code, day3.stderr).toBe(0);
    expect(await statesOf("daily")).toEqual({ succeeded: 3 });

    const window = ["--from", fire(1).toISOString(), "--to", fire(4).toISOString()];
    const requests = sandbox.requests().length;
    const posts = purchasePosts();
    const dry = await runCli(["-c", file, "--json", "jobs", "backfill", "daily", ...window, "--dry-run"]);
    expect(dry.code, dry.stderr).toBe(0);
    const planned = JSON.parse(dry.stdout);
    expect(planned.fires_in_window).toBe(4);
    expect(planned.missing_fires).toEqual([
      { fire_time: fire(1).toISOString(), recipients: 2, missing: 2, to_buy: 2, rejected: 0, cost: "610.00" },
      { fire_time: fire(3).toISOString(), recipients: 2, missing: 1, to_buy: 1, rejected: 0, cost: "305.00" },
      { fire_time: fire(4).toISOString(), recipients: 2, missing: 2, to_buy: 2, rejected: 0, cost: "610.00" },
    ]);
    expect(planned.total).toBe("1525.00");
    expect(planned.by_day.map((d: { cost: string }) => d.cost)).toEqual(["610.00", "305.00", "610.00"]);
    expect(purchasePosts()).toBe(posts);
    expect(
      sandbox
        .requests()
        .slice(requests)
        .every((r) => r.method === "GET"),
    ).toBe(true);
    expect(await statesOf("daily")).toEqual({ succeeded: 3 });

    const debits = sandbox.debits().length;
    const real = await runCli(["-c", file, "jobs", "backfill", "daily", ...window]);
    expect(real.code, real.stderr).toBe(0);
    const bought = sandbox.debits().slice(debits);
    expect(bought.map((d) => d.phone_number).sort()).toEqual([A, A, B, B, B].sort());
    const byFire = await rows<{ fire_time: Date | string; phone: string }>(
      database.db,
      sql`select fire_time, phone from purchases where job_name = 'daily' and state = 'succeeded' order by fire_time, phone`,
    );
    expect(byFire.map((r) => [new Date(r.fire_time).toISOString(), r.phone])).toEqual([
      [fire(1).toISOString(), A],
      [fire(1).toISOString(), B],
      [fire(2).toISOString(), A],
      [fire(2).toISOString(), B],
      [fire(3).toISOString(), A],
      [fire(3).toISOString(), B],
      [fire(4).toISOString(), A],
      [fire(4).toISOString(), B],
    ]);

    const second = await runCli(["-c", file, "jobs", "backfill", "daily", ...window]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain("nothing is missing");
    expect(sandbox.debits().length).toBe(debits + 5);
  });

  it("goes through the approval rules: above the threshold it waits for approval, then buys exactly its items", async () => {
    const ada = newKeyPair();
    const keyFile = join(mkdtempSync(join(tmpdir(), "topsync-key-")), "ada.key");
    writeFileSync(keyFile, ada.privatePem, { mode: 0o600 });
    const gated = { ...job, name: "gated", recipients: ["08036670001", "08036670002"] };
    const file = config([gated], {
      approvals: { rules: [{ above: "500.00", approvals: 1 }], approvers: { ada: ada.publicKey } },
    });
    const window = ["--from", fire(3).toISOString(), "--to", fire(4).toISOString()];
    const debits = sandbox.debits().length;
    const held = await runCli(["-c", file, "--json", "jobs", "backfill", "gated", ...window]);
    expect(held.code, held.stderr).toBe(0);
    const saved = JSON.parse(held.stdout);
    expect(saved).toMatchObject({
      status: "pending_approval",
      approvals_required: 1,
      total: "1220.00",
      to_buy: 4,
    });
    expect(sandbox.debits().length).toBe(debits);
    expect(await statesOf("gated")).toEqual({});

    const approve = await runCli(["-c", file, "approve", saved.plan_id, "--as", "ada", "--key", keyFile]);
    expect(approve.code, approve.stderr).toBe(0);
    const apply = await runCli(["-c", file, "apply", saved.plan_id]);
    expect(apply.code, apply.stderr).toBe(0);
    expect(sandbox.debits().length).toBe(debits + 4);
    expect(await statesOf("gated")).toEqual({ succeeded: 4 });
  });

  it("refuses a window wider than backfill_max unless told, and a window that ends before it starts", async () => {
    const file = config([job]);
    const wide = await runCli([
      "-c",
      file,
      "jobs",
      "backfill",
      "daily",
      "--from",
      new Date(today - 40 * DAY).toISOString(),
      "--to",
      new Date(today - DAY).toISOString(),
      "--dry-run",
    ]);
    expect(wide.code).toBe(64);
    expect(wide.stderr).toContain("wider than backfill_max (31d)");
    const backwards = await runCli([
      "-c",
      file,
      "jobs",
      "backfill",
      "daily",
      "--from",
      fire(4).toISOString(),
      "--to",
      fire(1).toISOString(),
      "--dry-run",
    ]);
    expect(backwards.code).toBe(64);
  });

  it("warns when fires to buy are from before the job first appeared (a job renamed would buy them again)", async () => {
    // "daily-v2" is "daily" renamed today: its name is new, so last week's fires of "daily" look missing.
    const renamed = { ...job, name: "daily-v2", recipients: ["08036680001"] };
    const file = config([renamed]);
    const window = ["--from", fire(1).toISOString(), "--to", fire(2).toISOString(), "--dry-run"];
    const dry = await runCli(["-c", file, "jobs", "backfill", "daily-v2", ...window]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain(
      "2 of the fires to backfill (2 purchases) are from before job daily-v2 first appeared",
    );
    expect(dry.stderr).toContain("would be bought again");

    // A job seen before the window: its missing fires are its own, nothing to warn about.
    await database.all(
      sql`insert into jobs (name, first_seen) values ('daily-v2', now() - interval '30 days')
          on conflict (name) do update set first_seen = excluded.first_seen`,
    );
    const own = await runCli(["-c", file, "jobs", "backfill", "daily-v2", ...window]);
    expect(own.code, own.stderr).toBe(0);
    expect(own.stderr).not.toContain("first appeared");
  });

  it("refuses a window of more purchases than a backfill takes before deciding any, saying how many", async () => {
    const csv = join(mkdtempSync(join(tmpdir(), "topsync-huge-")), "recipients.csv");
    const phones = Array.from({ length: 10_500 }, (_, i) => `0803${String(7_000_000 + i).padStart(7, "0")}`);
    writeFileSync(csv, `phone\n${phones.join("\n")}\n`);
    const file = config([{ name: "huge", schedule: "0 * * * *", plan: PLAN, recipients_file: csv }]);
    const savedPlans = async () =>
      (await rows<{ n: number }>(database.db, sql`select count(*)::int as n from saved_plans`))[0]!.n;
    const plansBefore = await savedPlans();
    // 48 hourly fires of 10,500 recipients: 504,000 purchases.
    const window = [
      "--from",
      new Date(today - 3 * DAY).toISOString(),
      "--to",
      new Date(today - DAY - 1).toISOString(),
    ];
    for (const mode of [["--dry-run"], ["--save", join(tmpdir(), `huge-${Date.now()}.json`)], []]) {
      const result = await runCli(["-c", file, "jobs", "backfill", "huge", ...window, ...mode]);
      expect(result.code, result.stderr).toBe(64);
      expect(result.stderr).toContain(
        'job "huge" would be 504,000 purchases in the window (48 fires × 10,500 recipients), more than a backfill takes (500,000)',
      );
    }
    expect(await statesOf("huge")).toEqual({});
    expect(await savedPlans()).toBe(plansBefore);
  });

  it("refuses a date the calendar does not have instead of rolling it over into the next month", async () => {
    const file = config([job]);
    const posts = purchasePosts();
    for (const [from, to] of [
      ["2026-02-30", "2026-03-05"],
      ["2026-02-01", "2026-02-29"],
      ["2026-04-31T08:00:00Z", "2026-05-02T08:00:00Z"],
    ]) {
      const result = await runCli(["-c", file, "jobs", "backfill", "daily", "--from", from!, "--to", to!]);
      expect(result.code, result.stderr).toBe(64);
      expect(result.stderr).toMatch(/must be an ISO time like .* or a date, got "2026-0[24]-(29|30|31)/);
    }
    // A fire time on 30 February is no fire on 2 March.
    const run = await runCli([
      "-c",
      file,
      "purchases",
      "run",
      "--job",
      "daily",
      "--fire-time",
      "2026-02-30T08:00:00Z",
    ]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(
      '--fire-time must be an ISO time like 2026-12-01T08:00:00+01:00, got "2026-02-30T08:00:00Z"',
    );
    expect(purchasePosts()).toBe(posts);
    const [fires] = await rows<{ n: number }>(
      database.db,
      sql`select count(*)::int as n from purchases where request_key like 'job:daily:2026-03-0%'`,
    );
    expect(fires!.n).toBe(0);
  });
});

describe("jobs list for people", () => {
  it("writes fires on the job's clock (a fire is a minute, a six-field schedule's too); --json keeps ISO instants", async () => {
    // Before: "2026-12-01T07:00:00.000Z" for a job written "0 8 1 * *" in Africa/Lagos.
    const file = config([
      {
        name: "monthly",
        schedule: "0 8 1 * *",
        timezone: "Africa/Lagos",
        plan: PLAN,
        recipients: ["08031230201"],
      },
      { name: "seconds", schedule: "30 * * * * *", plan: PLAN, recipients: ["08031230202"] },
    ]);
    const text = await runCli(["-c", file, "jobs", "list"]);
    expect(text.code, text.stderr).toBe(0);
    const line = (job: string) => text.stdout.split("\n").find((l) => l.startsWith(`${job} `)) ?? "";
    expect(line("monthly")).toMatch(/\(Africa\/Lagos\)\s+(\d{4}-\d{2}-01 08:00, ){2}\d{4}-\d{2}-01 08:00\s/);
    expect(line("seconds")).toMatch(
      /\(UTC\)\s+(\d{4}-\d{2}-\d{2} \d{2}:\d{2}, ){2}\d{4}-\d{2}-\d{2} \d{2}:\d{2}\s/,
    );
    expect(text.stdout).not.toMatch(/\d{2}:\d{2}:\d{2}\.\d{3}Z/);
    const listed = JSON.parse((await runCli(["-c", file, "--json", "jobs", "list"])).stdout) as Array<{
      job: string;
      next_fires: string[];
    }>;
    expect(listed.find((j) => j.job === "monthly")?.next_fires[0]).toMatch(/^\d{4}-\d{2}-01T07:00:00\.000Z$/);
  });
});
