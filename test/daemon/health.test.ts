// /healthz, /readyz and /metrics: readiness follows the database (down, back, unreachable at start), and
// /metrics is valid Prometheus text whose numbers are the ledger's.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, rows } from "../../src/db/client.js";
import { PURCHASE_STATES } from "../../src/db/schema.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { createPostgresDatabase } from "../helpers/db.js";
import {
  daemonConfig,
  databaseName,
  freePort,
  insertIntake,
  ledgerDatabase,
  sessionsOn,
  setConnectable,
  spawnDaemon,
  waitFor,
  waitReady,
} from "./helpers.js";
import { expectPromtoolClean, parsePrometheus, sampleValue } from "./prometheus.js";

describe("health and metrics of topsync run", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ verifyLag: "reads", seed: 9 });
  });
  afterAll(() => sandbox.close());

  it("/readyz fails while the database is down and recovers when it is back; /healthz stays up", {
    timeout: 120_000,
  }, async () => {
    const created = await createPostgresDatabase();
    const name = databaseName(created.url);
    const port = await freePort();
    // An idle daemon (no schedules; intake and sweeps far apart): postgres.js 3.4.9 crashes the process when
    // the server drops a connection a query was just being written to (porsager/postgres#1208); the daemon
    // then exits for its supervisor to restart it. That race is the driver's; this test is about readiness.
    const idle = {
      intake: { poll_interval: "1h", batch_size: 100 },
      verification: { initial_delay: "50ms", timeout: "20s", max_interval: "1m", horizon: "72h" },
    };
    const daemon = spawnDaemon(daemonConfig(sandbox, created.url, port, idle), port);
    try {
      await waitReady(daemon);
      // The start-up sweep and poll finish first: the daemon's sessions all idle for 300 ms.
      const quiet = async () => {
        const { sessions, recentlyBusy } = await sessionsOn(name, 300);
        return sessions > 0 && recentlyBusy === 0;
      };
      await waitFor("the daemon idle on its database", quiet, { daemons: [daemon] });
      await setConnectable(name, false);
      const closed = async () => (await sessionsOn(name)).sessions === 0;
      await waitFor("the dropped connections to close", closed, { daemons: [daemon] });
      const down = await waitFor(
        "/readyz to fail",
        async () => {
          const answer = await daemon.get("/readyz");
          return answer.status === 503 ? answer : undefined;
        },
        { daemons: [daemon] },
      );
      const report = JSON.parse(down.body) as { ready: boolean; checks: Record<string, string> };
      expect(report.ready).toBe(false);
      expect(report.checks.database).toMatch(/^unreachable: /);
      // why, in PostgreSQL's words, not the ORM's wrapper ("Failed query: select 1 params: ")
      expect(report.checks.database).not.toContain("Failed query");
      expect(report.checks.database).toMatch(/not currently accepting connections|terminat|connect|closed/i);
      expect(report.checks.shutdown).toBe("ok");
      expect((await daemon.get("/healthz")).status).toBe(200);
      // The ledger gauges are absent while the ledger cannot be read: unknown, not 0.
      const blind = parsePrometheus((await daemon.get("/metrics")).body);
      expect(sampleValue(blind, "topsync_database_up")).toBe(0);
      const ledgerNames = ["topsync_purchases", "topsync_purchases_in_doubt", "topsync_purchases_unverified"];
      expect(blind.samples.filter((s) => ledgerNames.includes(s.name))).toEqual([]);
      expect(blind.samples.some((s) => s.name === "topsync_spend_today_naira")).toBe(false);
      await setConnectable(name, true);
      await waitReady(daemon);
      await waitFor(
        "the ledger gauges to come back",
        async () => {
          const seen = parsePrometheus((await daemon.get("/metrics")).body);
          return sampleValue(seen, "topsync_database_up") === 1 &&
            sampleValue(seen, "topsync_purchases_in_doubt") === 0
            ? true
            : undefined;
        },
        { daemons: [daemon] },
      );
      expect(daemon.child.exitCode).toBeNull();
      daemon.child.kill("SIGTERM");
      expect(await daemon.exited).toBe(0);
    } finally {
      daemon.child.kill("SIGKILL");
      await setConnectable(name, true);
      await created.drop();
    }
  });

  it("a database unreachable at start: a clear error, retries with backoff, ready once it connects", {
    timeout: 120_000,
  }, async () => {
    const created = await createPostgresDatabase();
    const name = databaseName(created.url);
    await setConnectable(name, false);
    const port = await freePort();
    const daemon = spawnDaemon(daemonConfig(sandbox, created.url, port), port);
    try {
      await waitFor("a second failed attempt", () => daemon.stderr().includes("(attempt 2)"), {
        daemons: [daemon],
      });
      expect(daemon.stderr()).toContain(
        `cannot connect to the database at ${new URL(created.url).host}/${name}`,
      );
      expect(daemon.stderr()).toContain("retrying in 1s (attempt 1)");
      expect(daemon.stderr()).toContain("retrying in 2s (attempt 2)");
      expect((await daemon.get("/healthz")).status).toBe(200);
      const waiting = await daemon.get("/readyz");
      expect(waiting.status).toBe(503);
      expect(JSON.parse(waiting.body).checks.database).toContain("cannot connect to the database");
      await setConnectable(name, true);
      await waitReady(daemon);
      daemon.child.kill("SIGTERM");
      expect(await daemon.exited).toBe(0);
    } finally {
      daemon.child.kill("SIGKILL");
      await setConnectable(name, true);
      await created.drop();
    }
  });

  it("/metrics parses as Prometheus text and its counts match the ledger", { timeout: 120_000 }, async () => {
    sandbox.reset();
    const created = await createPostgresDatabase();
    const database: Database = await ledgerDatabase(created.url);
    const port = await freePort();
    // one website pass a minute, a few seconds from now, so the numbers hold still while they are compared
    const second = (new Date().getUTCSeconds() + 8) % 60;
    const daemon = spawnDaemon(
      daemonConfig(sandbox, created.url, port, {
        budget: { daily_limit: "50000.00" },
        websites: {
          schedule: `${second} * * * * *`,
          items: [{ domain: "one.example" }, { domain: "two.example" }],
        },
      }),
      port,
    );
    try {
      await waitReady(daemon);
      await insertIntake(database, 40);
      await waitFor(
        "the intake purchases to settle and a website pass to finish",
        async () => {
          const [row] = await rows<{ settled: string; passes: string }>(
            database.db,
            sql`select (select count(*) from purchases where state = 'succeeded') as settled,
                       (select count(*) from website_runs where status = 'ok') as passes`,
          );
          return Number(row?.settled) === 40 && Number(row?.passes) >= 1;
        },
        { daemons: [daemon], timeoutMs: 90_000 },
      );
      const answer = await daemon.get("/metrics");
      expect(answer.status).toBe(200);
      const metrics = parsePrometheus(answer.body);

      const byState = await rows<{ state: string; n: string }>(
        database.db,
        sql`select state, count(*) as n from purchases group by state`,
      );
      for (const state of PURCHASE_STATES) {
        const expected = Number(byState.find((r) => r.state === state)?.n ?? 0);
        expect(sampleValue(metrics, "topsync_purchases", { state })).toBe(expected);
      }
      expect(sampleValue(metrics, "topsync_purchases", { state: "succeeded" })).toBe(40);
      expect(sampleValue(metrics, "topsync_purchases_in_doubt")).toBe(0);
      expect(sampleValue(metrics, "topsync_purchases_unverified")).toBe(0);
      const spent = sandbox.debits().reduce((sum, d) => sum + Number(d.amount), 0);
      expect(sampleValue(metrics, "topsync_spend_today_naira")).toBe(spent);
      expect(sampleValue(metrics, "topsync_budget_daily_limit_naira")).toBe(50000);
      expect(sampleValue(metrics, "topsync_budget_remaining_today_naira")).toBe(50000 - spent);

      // one purchase call per debit, all ok; verification reads counted by outcome
      const posts = sandbox.requests().filter((r) => r.service === "reseller" && r.method === "POST");
      const labels = { service: "reseller", endpoint: "data", outcome: "ok" };
      expect(sampleValue(metrics, "topsync_http_request_duration_seconds_count", labels)).toBe(posts.length);
      expect(
        sampleValue(metrics, "topsync_http_request_duration_seconds_bucket", { ...labels, le: "+Inf" }),
      ).toBe(posts.length);
      expect(posts).toHaveLength(40);
      const reads = sandbox
        .requests()
        .filter((r) => r.service === "reseller" && r.path.includes("/transaction/"));
      const readCount = metrics.samples
        .filter(
          (s) =>
            s.name === "topsync_http_request_duration_seconds_count" && s.labels.endpoint === "transaction",
        )
        .reduce((sum, s) => sum + s.value, 0);
      expect(readCount).toBe(reads.length);

      // the website pass: its plan counts and when it finished, as website_runs has them
      const [run] = await rows<{ summary: { planned: Record<string, number> }; finished_at: Date | string }>(
        database.db,
        sql`select summary, finished_at from website_runs where status = 'ok' order by id desc limit 1`,
      );
      for (const action of ["create", "update", "delete", "unchanged", "unmanaged", "conflicts"])
        expect(sampleValue(metrics, "topsync_website_plan", { action })).toBe(run!.summary.planned[action]);
      expect(sampleValue(metrics, "topsync_website_plan", { action: "create" })).toBe(2);
      expect(sampleValue(metrics, "topsync_website_last_success_timestamp_seconds")).toBe(
        new Date(run!.finished_at).getTime() / 1000,
      );

      // fires by job and status, as schedule_fires has them; and this replica's own count of what it ran.
      // The website loop keeps firing: compare a scrape with the table as it was before and after it.
      const readFires = () =>
        rows<{ job_name: string; status: string; n: string }>(
          database.db,
          sql`select job_name, status, count(*) as n from schedule_fires group by job_name, status order by 1, 2`,
        );
      const { fires, scraped } = await waitFor(
        "a scrape while no fire changed",
        async () => {
          const before = await readFires();
          const scrape = parsePrometheus((await daemon.get("/metrics")).body);
          const after = await readFires();
          return JSON.stringify(before) === JSON.stringify(after)
            ? { fires: after, scraped: scrape }
            : undefined;
        },
        { daemons: [daemon] },
      );
      expect(fires.length).toBeGreaterThan(0);
      for (const f of fires)
        expect(sampleValue(scraped, "topsync_schedule_fires", { job: f.job_name, status: f.status })).toBe(
          Number(f.n),
        );
      const websiteFires = Number(fires.find((f) => f.job_name === "(websites)" && f.status === "done")?.n);
      // One label value for the website loop in both families; no job name can take it.
      expect(sampleValue(scraped, "topsync_fires_total", { job: "(websites)", result: "run" })).toBe(
        websiteFires,
      );
      expect(metrics.samples.some((s) => s.labels.job === "websites")).toBe(false);
      await expectPromtoolClean(answer.body);
      expect(metrics.types.get("topsync_fires_total")).toBe("counter");
      expect(metrics.types.get("topsync_http_request_duration_seconds")).toBe("histogram");
      daemon.child.kill("SIGTERM");
      expect(await daemon.exited).toBe(0);
    } finally {
      daemon.child.kill("SIGKILL");
      await database.close();
      await created.drop();
    }
  });
});
