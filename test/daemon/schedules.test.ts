// The daemon's schedules and wake-ups in one replica: a NOTIFY on purchase_requests wakes intake long before
// its poll interval, a job whose run outlasts the interval has its next fire skipped and logged (not
// stacked), and a one-off `at` job fires once at its time.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import {
  count,
  daemonConfig,
  freePort,
  insertIntake,
  spawnDaemon,
  useLedger,
  waitFor,
  waitReady,
} from "./helpers.js";
import { parsePrometheus, sampleValue } from "./prometheus.js";

describe("schedules and wake-ups", () => {
  // a purchase call outlasts the one-second schedule
  const fixture = useLedger({ seed: 12, faults: { endpoints: { data: { latencyMs: 2500 } } } });

  it("wakes intake on NOTIFY, skips overlapping fires, fires an `at` job once", {
    timeout: 120_000,
  }, async () => {
    const port = await freePort();
    const at = new Date(Math.ceil((Date.now() + 8000) / 1000) * 1000);
    // known since before `at`: should the start be slow and `at` pass first, catch-up runs it instead
    await fixture.database.db.execute(
      sql`insert into jobs (name, first_seen) values ('once', ${new Date(Date.now() - 60_000).toISOString()}::timestamptz)`,
    );
    const plan = { network: "MTN", plan_id: "102" };
    const daemon = spawnDaemon(
      daemonConfig(fixture.sandbox, fixture.url, port, {
        intake: { poll_interval: "1h", batch_size: 100 },
        purchases: [
          { name: "slow", schedule: "* * * * * *", plan, recipients: ["08036660001"] },
          { name: "once", at: at.toISOString(), plan, recipients: ["08036660002", "08036660003"] },
        ],
      }),
      port,
    );
    try {
      await waitReady(daemon);
      // intake polled at start and not again for an hour: only the NOTIFY can bring these in
      await insertIntake(fixture.database, 5);
      await waitFor(
        "the intake requests to be moved by the NOTIFY",
        async () =>
          (await count(
            fixture.database,
            sql`select count(*) as n from purchase_requests where processed_at is not null`,
          )) === 5,
        { daemons: [daemon] },
      );

      await waitFor(
        "an overlapping fire to be skipped",
        () => daemon.stderr().includes("is skipped: the previous run is still going on this replica"),
        { daemons: [daemon] },
      );
      await waitFor(
        "the `at` job to fire",
        async () =>
          (await count(
            fixture.database,
            sql`select count(*) as n from schedule_fires where job_name = 'once' and status = 'done'`,
          )) === 1,
        { daemons: [daemon] },
      );
      const metrics = parsePrometheus((await daemon.get("/metrics")).body);
      expect(sampleValue(metrics, "topsync_fires_total", { job: "slow", result: "overlap" })).toBeGreaterThan(
        0,
      );
      expect(sampleValue(metrics, "topsync_fires_total", { job: "once", result: "run" })).toBe(1);
      daemon.child.kill("SIGTERM");
      expect(await daemon.exited).toBe(0);

      const once = await rows<{ fire_time: Date | string; phone: string }>(
        fixture.database.db,
        sql`select fire_time, phone from purchases where job_name = 'once' order by phone`,
      );
      expect(once.map((r) => [new Date(r.fire_time).toISOString(), r.phone])).toEqual([
        [at.toISOString(), "08036660002"],
        [at.toISOString(), "08036660003"],
      ]);
      // the slow job's runs did not stack: each fire it ran has its one purchase, and some seconds had none
      const slow = await rows<{ fire_time: Date | string; n: string }>(
        fixture.database.db,
        sql`select fire_time, count(*) as n from purchases where job_name = 'slow' group by fire_time order by fire_time`,
      );
      expect(slow.length).toBeGreaterThan(0);
      expect(slow.every((r) => Number(r.n) === 1)).toBe(true);
      const times = slow.map((r) => new Date(r.fire_time).getTime());
      const span = (times[times.length - 1]! - times[0]!) / 1000 + 1;
      expect(times.length).toBeLessThan(span);
    } finally {
      daemon.child.kill("SIGKILL");
    }
  });
});
