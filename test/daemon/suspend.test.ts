// `jobs suspend` and `jobs resume` against two `topsync run` replicas on one PostgreSQL database, a job firing
// every 2 s: after a suspension neither replica writes or buys a fire from a second later (each is recorded as a
// missed fire), after a resume the job fires and buys again, and a restart's catch-up never buys a fire that came
// while the job was suspended.
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import { runCli } from "../helpers/cli.js";
import {
  count,
  type DaemonProcess,
  daemonConfig,
  freePort,
  spawnDaemon,
  stopDaemon,
  useLedger,
  waitFor,
  waitReady,
} from "./helpers.js";
import { parsePrometheus, sampleValue } from "./prometheus.js";

const PLAN = { network: "MTN", plan_id: "102" };
const MINUTE = 60_000;

describe("suspend and resume across replicas", () => {
  const fixture = useLedger({ seed: 33 });
  const replicas: DaemonProcess[] = [];
  afterAll(() => {
    for (const r of replicas) r.child.kill("SIGKILL");
  });

  const bought = (from: number) =>
    count(
      fixture.database,
      sql`select count(*) as n from purchases where job_name = 'tick' and state = 'succeeded'
          and fire_time >= ${new Date(from).toISOString()}::timestamptz`,
    );
  const written = (from: number, to = Date.now() + MINUTE) =>
    count(
      fixture.database,
      sql`select count(*) as n from purchases where job_name = 'tick'
          and fire_time >= ${new Date(from).toISOString()}::timestamptz and fire_time < ${new Date(to).toISOString()}::timestamptz`,
    );
  const missed = (from: number) =>
    count(
      fixture.database,
      sql`select count(*) as n from schedule_fires where job_name = 'tick' and status = 'skipped'
          and reason like 'the job is suspended%' and fire_time >= ${new Date(from).toISOString()}::timestamptz`,
    );

  it("stops every replica within a second of a suspension, and starts them again on resume", {
    timeout: 180_000,
  }, async () => {
    const files: string[] = [];
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const file = daemonConfig(fixture.sandbox, fixture.url, port, {
        purchases: [{ name: "tick", schedule: "*/2 * * * * *", plan: PLAN, recipients: ["08035551001"] }],
        intake: { enabled: false, poll_interval: "1s", batch_size: 100 },
      });
      files.push(file);
      replicas.push(spawnDaemon(file, port));
    }
    for (const r of replicas) await waitReady(r);
    const cli = (...args: string[]) => runCli(["-c", files[0]!, ...args]);
    await waitFor("a fire to be bought", async () => (await bought(0)) > 0, { daemons: replicas });

    const suspend = await cli("jobs", "suspend", "tick", "--reason", "provider maintenance");
    expect(suspend.code, suspend.stderr).toBe(0);
    const suspendedAt = Date.now();
    await waitFor("three fires missed while suspended", async () => (await missed(suspendedAt)) >= 3, {
      daemons: replicas,
    });
    // neither replica wrote (so neither bought) a fire from a second after the suspension on
    expect(await written(suspendedAt + 1000)).toBe(0);
    const debitsWhileSuspended = fixture.sandbox.debits().length;

    const listed = await cli("--json", "jobs", "list");
    expect(listed.code, listed.stderr).toBe(0);
    const [tick] = JSON.parse(listed.stdout);
    expect(tick).toMatchObject({ job: "tick", state: "suspended", note: "provider maintenance" });
    expect(tick.missed_fires).toBeGreaterThanOrEqual(3);
    expect(tick.last_fire.outcome).toBe("skipped");
    expect(tick.next_fires).toHaveLength(3);
    const metrics = parsePrometheus((await replicas[1]!.get("/metrics")).body);
    expect(sampleValue(metrics, "topsync_job_state", { job: "tick", state: "suspended" })).toBe(1);
    expect(sampleValue(metrics, "topsync_job_missed_fires_total", { job: "tick" })).toBeGreaterThanOrEqual(3);
    expect(
      await count(
        fixture.database,
        sql`select count(*) as n from notification_outbox where trigger = 'missed_fire'`,
      ),
    ).toBeGreaterThanOrEqual(3);

    const report = await cli("--json", "report", "--since", "1h");
    expect(report.code, report.stderr).toBe(0);
    const schedules = JSON.parse(report.stdout).schedules;
    expect(
      schedules.missed_by_job.find((j: { job: string }) => j.job === "tick").missed,
    ).toBeGreaterThanOrEqual(3);
    expect(schedules.state_changes).toContainEqual(
      expect.objectContaining({ job: "tick", to: "suspended", reason: "provider maintenance" }),
    );

    const resume = await cli("jobs", "resume", "tick", "--reason", "maintenance over");
    expect(resume.code, resume.stderr).toBe(0);
    const resumedAt = Date.now();
    await waitFor("a fire after the resume to be bought", async () => (await bought(resumedAt)) > 0, {
      daemons: replicas,
    });
    // the fires of the suspension were never bought, before or after the resume
    expect(await written(suspendedAt + 1000, resumedAt - 1000)).toBe(0);
    expect(fixture.sandbox.debits().length).toBeGreaterThan(debitsWhileSuspended);
    for (const r of replicas) expect(await stopDaemon(r)).toBe(0);
  });

  it("never catches up, at a restart, a fire that came while the job was suspended", {
    timeout: 180_000,
  }, async () => {
    // A minutely job suspended from 20 minutes ago until a moment ago, while no replica ran: its latest missed fire
    // (the last minute) came during the suspension. Started away from a minute's edge, so that fire is the latest.
    await waitFor("a moment away from a minute's edge", () => {
      const second = new Date().getUTCSeconds();
      return second >= 5 && second <= 30;
    });
    const now = Date.now();
    const latest = Math.floor(now / MINUTE) * MINUTE;
    await fixture.database.db.execute(
      sql`insert into jobs (name, first_seen, state) values ('minutely', ${new Date(now - 30 * MINUTE).toISOString()}::timestamptz, 'active')`,
    );
    await fixture.database.db.execute(
      sql`insert into job_events (job_name, at, actor, from_state, to_state, reason) values
          ('minutely', ${new Date(now - 20 * MINUTE).toISOString()}::timestamptz, 'cli:ada', 'active', 'suspended', 'stop'),
          ('minutely', ${new Date(now - 1000).toISOString()}::timestamptz, 'cli:ada', 'suspended', 'active', 'go')`,
    );
    const port = await freePort();
    const file = daemonConfig(fixture.sandbox, fixture.url, port, {
      purchases: [
        { name: "minutely", schedule: "* * * * *", catch_up: "10m", plan: PLAN, recipients: ["08035552001"] },
      ],
      intake: { enabled: false, poll_interval: "1s", batch_size: 100 },
    });
    const daemon = spawnDaemon(file, port);
    replicas.push(daemon);
    await waitReady(daemon);
    const [fire] = await waitFor("the latest missed fire to be recorded", async () => {
      const found = await rows<{ status: string; reason: string }>(
        fixture.database.db,
        sql`select status, reason from schedule_fires where job_name = 'minutely'
            and fire_time = ${new Date(latest).toISOString()}::timestamptz`,
      );
      return found.length > 0 ? found : undefined;
    });
    expect(fire).toEqual({ status: "skipped", reason: "the job was suspended or paused at that time" });
    expect(
      await count(fixture.database, sql`select count(*) as n from purchases where job_name = 'minutely'`),
    ).toBe(0);
    expect(await stopDaemon(daemon)).toBe(0);
  });
});
