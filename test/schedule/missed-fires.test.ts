// Missed fires without a daemon: an operator's crontab runs `topsync purchases run`, on PostgreSQL with the sandbox
// over HTTP. A fire that came while its job was suspended, and fires lost to downtime beyond catch_up, are recorded
// skipped (a missed_fire each) exactly once — two racing runs and every later run add none — counted by
// `jobs list`, notified once, and never bought; only the latest missed fire within catch_up runs.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Database, rows } from "../../src/db/client.js";
import type { Sandbox } from "../../src/sandbox/index.js";
import { runCli } from "../helpers/cli.js";
import { writeConfigFile } from "../helpers/config.js";
import { notificationsTo } from "../notify/helpers.js";
import { openScheduleLedger, type ScheduleLedger } from "./helpers.js";

const PLAN = { network: "MTN", plan_id: "102" };
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let ledger: ScheduleLedger;
let sandbox: Sandbox;
let url: string;
let database: Database;

beforeAll(async () => {
  ledger = await openScheduleLedger(37);
  ({ sandbox, url, database } = ledger);
});

afterAll(() => ledger?.close());

beforeEach(() => {
  sandbox.setFaults({ endpoints: {} });
  sandbox.receivers.reset();
});

function purchasePosts(): number {
  return sandbox.requests().filter((r) => r.service === "reseller" && r.method !== "GET").length;
}

function config(jobs: Array<Record<string, unknown>>): string {
  return writeConfigFile(sandbox, url, {
    timezone: "UTC",
    purchases: jobs,
    notifications: notificationsTo(sandbox, {
      rules: [{ on: ["missed_fire"], to: ["audit-hook"] }],
      group_wait: "0s",
    }),
  }).file;
}

interface FireRow {
  fire_time: string;
  status: string;
  reason: string | null;
}

async function firesOf(job: string): Promise<FireRow[]> {
  const found = await rows<{ fire_time: Date | string; status: string; reason: string | null }>(
    database.db,
    sql`select fire_time, status, reason from schedule_fires where job_name = ${job} order by fire_time desc`,
  );
  return found.map((f) => ({
    fire_time: new Date(f.fire_time).toISOString(),
    status: f.status,
    reason: f.reason,
  }));
}

async function missedNotices(job: string): Promise<number> {
  const [row] = await rows<{ n: number | string }>(
    database.db,
    sql`select count(*) as n from notification_outbox where trigger = 'missed_fire' and facts->>'job' = ${job}`,
  );
  return Number(row?.n ?? 0);
}

async function firesBought(job: string): Promise<string[]> {
  const found = await rows<{ fire_time: Date | string }>(
    database.db,
    sql`select distinct fire_time from purchases where job_name = ${job} order by fire_time`,
  );
  return found.map((r) => new Date(r.fire_time).toISOString());
}

/** Backdates a job's first sighting and its history, as if it had been configured and changed long ago. */
async function backdate(job: string, firstSeen: Date, eventsAt?: Date): Promise<void> {
  await database.all(
    sql`insert into jobs (name, first_seen) values (${job}, ${firstSeen.toISOString()}::timestamptz)
        on conflict (name) do update set first_seen = excluded.first_seen`,
  );
  if (eventsAt)
    await database.all(
      sql`update job_events set at = ${eventsAt.toISOString()}::timestamptz where job_name = ${job}`,
    );
}

/** Waits, if needed, until the current hour has more than a minute left, so a run sees the same latest hourly fire. */
async function awayFromTheHour(): Promise<Date> {
  const left = HOUR - (Date.now() % HOUR);
  if (left < 60_000) await new Promise((resolve) => setTimeout(resolve, left + 1000));
  return new Date(Math.floor(Date.now() / HOUR) * HOUR);
}

async function listed(file: string, job: string): Promise<Record<string, unknown>> {
  const result = await runCli(["-c", file, "--json", "jobs", "list"]);
  expect(result.code, result.stderr).toBe(0);
  const jobs = JSON.parse(result.stdout) as Array<Record<string, unknown>>;
  return jobs.find((j) => j.job === job)!;
}

describe("purchases run from cron, without a daemon", () => {
  it("records a fire that came while the job was suspended as one missed_fire, however many runs see it", async () => {
    // A daily fire between one and two hours ago, within catch_up (6h); suspended half an hour before it.
    const fire = new Date(Math.floor((Date.now() - HOUR) / HOUR) * HOUR);
    const file = config([
      { name: "nightly", schedule: `0 ${fire.getUTCHours()} * * *`, plan: PLAN, recipients: ["08031240001"] },
    ]);
    const suspended = await runCli(["-c", file, "jobs", "suspend", "nightly", "--reason", "audit"]);
    expect(suspended.code, suspended.stderr).toBe(0);
    await backdate("nightly", new Date(fire.getTime() - DAY), new Date(fire.getTime() - 1_800_000));
    const posts = purchasePosts();

    // Two crontab runs racing, then a later one.
    const racing = await Promise.all([
      runCli(["-c", file, "purchases", "run"]),
      runCli(["-c", file, "purchases", "run"]),
    ]);
    for (const run of racing) expect(run.code, run.stderr).toBe(0);
    expect(racing.map((r) => r.stderr).join("\n")).toContain(
      `job nightly: 1 missed fire recorded skipped, never run (${fire.toISOString()}`,
    );
    const later = await runCli(["-c", file, "purchases", "run"]);
    expect(later.code, later.stderr).toBe(0);
    expect(later.stderr).not.toContain("recorded skipped");

    expect(await firesOf("nightly")).toEqual([
      { fire_time: fire.toISOString(), status: "skipped", reason: "the job is suspended: audit" },
    ]);
    expect(await missedNotices("nightly")).toBe(1);
    expect(purchasePosts()).toBe(posts);
    expect(await listed(file, "nightly")).toMatchObject({
      state: "suspended",
      missed_fires: 1,
      last_fire: { fire_time: fire.toISOString(), outcome: "skipped" },
    });
    const table = await runCli(["-c", file, "jobs", "list"]);
    expect(table.stdout).toMatch(/^JOB +SCHEDULE .* MISSED +NOTE/);
    expect(table.stdout).toMatch(/nightly .* suspended +1 +audit/);

    // Resumed within catch_up: the fire it missed is still not bought, nor counted again.
    expect((await runCli(["-c", file, "jobs", "resume", "nightly"])).code).toBe(0);
    const resumed = await runCli(["-c", file, "purchases", "run"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await firesBought("nightly")).toEqual([]);
    expect(purchasePosts()).toBe(posts);
    expect((await listed(file, "nightly")).missed_fires).toBe(1);
    expect(await missedNotices("nightly")).toBe(1);

    // The notification goes out once, however often the outbox is flushed.
    for (let i = 0; i < 2; i++) expect((await runCli(["-c", file, "notify", "flush"])).code).toBe(0);
    const told = sandbox.receivers
      .received("webhook")
      .map((r) => JSON.parse(r.body) as { trigger: string; text: string });
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ trigger: "missed_fire" });
    expect(told[0]?.text).toContain("job nightly");
  });

  it("records the missed fire of a crontab's `purchases run --job J` for a suspended job before refusing it", async () => {
    const fire = new Date(Math.floor((Date.now() - HOUR) / HOUR) * HOUR);
    const file = config([
      { name: "perjob", schedule: `0 ${fire.getUTCHours()} * * *`, plan: PLAN, recipients: ["08031240051"] },
    ]);
    expect((await runCli(["-c", file, "jobs", "suspend", "perjob", "--reason", "stop"])).code).toBe(0);
    await backdate("perjob", new Date(fire.getTime() - DAY), new Date(fire.getTime() - 1_800_000));
    const posts = purchasePosts();
    for (let i = 0; i < 2; i++) {
      const run = await runCli(["-c", file, "purchases", "run", "--job", "perjob"]);
      expect(run.code).toBe(64);
      expect(run.stderr).toContain('job "perjob" is suspended (stop): nothing was run');
    }
    expect(await firesOf("perjob")).toEqual([
      { fire_time: fire.toISOString(), status: "skipped", reason: "the job is suspended: stop" },
    ]);
    expect(await missedNotices("perjob")).toBe(1);
    expect(purchasePosts()).toBe(posts);
    expect((await listed(file, "perjob")).missed_fires).toBe(1);
  });

  it("counts a fire that came while the job was suspended once resumed, without buying it", async () => {
    const fire = new Date(Math.floor((Date.now() - HOUR) / HOUR) * HOUR);
    const file = config([
      { name: "weekly", schedule: `0 ${fire.getUTCHours()} * * *`, plan: PLAN, recipients: ["08031240101"] },
    ]);
    expect((await runCli(["-c", file, "jobs", "suspend", "weekly", "--reason", "quiet"])).code).toBe(0);
    expect((await runCli(["-c", file, "jobs", "resume", "weekly"])).code).toBe(0);
    // Suspended half an hour before the fire, resumed ten minutes after it.
    await backdate("weekly", new Date(fire.getTime() - DAY));
    await database.all(
      sql`update job_events set at = case when to_state = 'suspended'
            then ${new Date(fire.getTime() - 1_800_000).toISOString()}::timestamptz
            else ${new Date(fire.getTime() + 600_000).toISOString()}::timestamptz end
          where job_name = 'weekly'`,
    );
    const posts = purchasePosts();
    for (let i = 0; i < 2; i++) {
      const run = await runCli(["-c", file, "purchases", "run"]);
      expect(run.code, run.stderr).toBe(0);
    }
    expect(await firesOf("weekly")).toEqual([
      {
        fire_time: fire.toISOString(),
        status: "skipped",
        reason: "the job was suspended or paused at that time",
      },
    ]);
    expect(await missedNotices("weekly")).toBe(1);
    expect(await firesBought("weekly")).toEqual([]);
    expect(purchasePosts()).toBe(posts);
    expect((await listed(file, "weekly")).missed_fires).toBe(1);
  });

  it("does not buy after the resume a fire a run skipped because the job was suspended then, nor says a dry run would", async () => {
    // The fire came while the job was active; the first run after it found the job suspended (as a daemon's claim
    // would have): the fire is missed, and stays missed once the job is resumed within catch_up.
    const fire = new Date(Math.floor((Date.now() - HOUR) / HOUR) * HOUR);
    const file = config([
      { name: "late", schedule: `0 ${fire.getUTCHours()} * * *`, plan: PLAN, recipients: ["08031240151"] },
    ]);
    await backdate("late", new Date(fire.getTime() - DAY));
    expect((await runCli(["-c", file, "jobs", "suspend", "late", "--reason", "hold"])).code).toBe(0);
    const skipped = await runCli(["-c", file, "purchases", "run"]);
    expect(skipped.code, skipped.stderr).toBe(0);
    expect((await runCli(["-c", file, "jobs", "resume", "late"])).code).toBe(0);
    const posts = purchasePosts();
    const dry = await runCli(["-c", file, "--json", "purchases", "run", "--dry-run"]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout).totals).toMatchObject({ to_buy: 0 });
    const run = await runCli(["-c", file, "purchases", "run"]);
    expect(run.code, run.stderr).toBe(0);
    expect(await firesBought("late")).toEqual([]);
    expect(purchasePosts()).toBe(posts);
    expect(await firesOf("late")).toEqual([
      { fire_time: fire.toISOString(), status: "skipped", reason: "the job is suspended: hold" },
    ]);
    expect(await missedNotices("late")).toBe(1);
  });

  it("plan does not show as bought now a due fire that purchases run will not buy (missed, or while suspended)", async () => {
    const fire = new Date(Math.floor((Date.now() - HOUR) / HOUR) * HOUR);
    const daily = (name: string, phone: string) => ({
      name,
      schedule: `0 ${fire.getUTCHours()} * * *`,
      plan: PLAN,
      recipients: [phone],
    });
    const file = config([daily("was-off", "08031240171"), daily("skipped", "08031240172")]);
    // was-off: suspended across the fire, resumed since, nothing recorded. skipped: its fire recorded missed.
    for (const job of ["was-off", "skipped"])
      expect((await runCli(["-c", file, "jobs", "suspend", job, "--reason", "x"])).code).toBe(0);
    await backdate("was-off", new Date(fire.getTime() - DAY), new Date(fire.getTime() - 1_800_000));
    await backdate("skipped", new Date(fire.getTime() - DAY));
    expect((await runCli(["-c", file, "purchases", "run", "--job", "skipped"])).code).toBe(64);
    for (const job of ["was-off", "skipped"])
      expect((await runCli(["-c", file, "jobs", "resume", job])).code).toBe(0);
    const plan = await runCli(["-c", file, "--json", "plan", "--window", "1m"]);
    expect(plan.code, plan.stderr).toBe(0);
    const report = JSON.parse(plan.stdout) as {
      purchases: { totals: { to_buy: number }; runs: Array<{ job: string | null; to_buy: number }> };
    };
    expect(report.purchases.runs.filter((r) => r.job === "was-off" || r.job === "skipped")).toEqual([]);
    expect(report.purchases.totals.to_buy).toBe(0);
    const posts = purchasePosts();
    const run = await runCli(["-c", file, "purchases", "run"]);
    expect(run.code, run.stderr).toBe(0);
    expect(purchasePosts()).toBe(posts);
  });

  it("after downtime runs only the latest missed fire within catch_up, and records the rest skipped once", async () => {
    const hour = await awayFromTheHour();
    const file = config([
      { name: "hourly", schedule: "0 * * * *", catch_up: "2h", plan: PLAN, recipients: ["08031240201"] },
    ]);
    await backdate("hourly", new Date(hour.getTime() - DAY));
    // The last fire an earlier run wrote, five hours ago; the crontab (or the machine) was down since.
    await database.all(
      sql`insert into schedule_fires (fire_key, job_name, fire_time, status, claimed_by, finished_at)
          values (${`job:hourly:${new Date(hour.getTime() - 5 * HOUR).toISOString()}`}, 'hourly',
            ${new Date(hour.getTime() - 5 * HOUR).toISOString()}::timestamptz, 'done', 'cli:1', now())`,
    );
    const posts = purchasePosts();
    const run = await runCli(["-c", file, "purchases", "run"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("job hourly: 4 missed fires recorded skipped, never run");
    const at = (h: number) => new Date(hour.getTime() - h * HOUR).toISOString();
    expect(await firesOf("hourly")).toEqual([
      { fire_time: at(0), status: "done", reason: null },
      {
        fire_time: at(1),
        status: "skipped",
        reason: `superseded: only the latest missed fire (${at(0)}) runs`,
      },
      { fire_time: at(2), status: "skipped", reason: "missed by more than catch_up (2h)" },
      { fire_time: at(3), status: "skipped", reason: "missed by more than catch_up (2h)" },
      { fire_time: at(4), status: "skipped", reason: "missed by more than catch_up (2h)" },
      { fire_time: at(5), status: "done", reason: null },
    ]);
    expect(await firesBought("hourly")).toEqual([at(0)]);
    expect(purchasePosts()).toBe(posts + 1);
    expect(await missedNotices("hourly")).toBe(4);

    const again = await runCli(["-c", file, "purchases", "run"]);
    expect(again.code, again.stderr).toBe(0);
    expect(await firesOf("hourly")).toHaveLength(6);
    expect(await missedNotices("hourly")).toBe(4);
    expect(purchasePosts()).toBe(posts + 1);
    expect(await listed(file, "hourly")).toMatchObject({
      missed_fires: 4,
      last_fire: { fire_time: at(0), outcome: "written" },
    });
  });

  it("counts nothing missed before the first fire it recorded (a ledger from before fires were recorded)", async () => {
    const hour = await awayFromTheHour();
    const file = config([{ name: "legacy", schedule: "0 * * * *", plan: PLAN, recipients: ["08031240301"] }]);
    await backdate("legacy", new Date(hour.getTime() - DAY));
    const run = await runCli(["-c", file, "purchases", "run"]);
    expect(run.code, run.stderr).toBe(0);
    expect(await firesOf("legacy")).toEqual([
      { fire_time: hour.toISOString(), status: "done", reason: null },
    ]);
    expect(await missedNotices("legacy")).toBe(0);
    expect(await firesBought("legacy")).toEqual([hour.toISOString()]);
  });
});
