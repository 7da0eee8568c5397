// A job whose recipients file cannot be read fails its own fires — `failed` with the reason in
// schedule_fires, a metric, a log line — while the daemon and every other job carry on (no unhandled stream
// error, no crash loop).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import { count, daemonConfig, freePort, spawnDaemon, useLedger, waitFor, waitReady } from "./helpers.js";
import { parsePrometheus, sampleValue } from "./prometheus.js";

describe("a recipients file that cannot be read", () => {
  const fixture = useLedger({ seed: 16 });

  it("fails that job's fires alone; the daemon and the other job go on", { timeout: 120_000 }, async () => {
    const port = await freePort();
    const folder = mkdtempSync(join(tmpdir(), "topsync-not-a-file-")); // a directory where a CSV should be
    const plan = { network: "MTN", plan_id: "102" };
    const daemon = spawnDaemon(
      daemonConfig(fixture.sandbox, fixture.url, port, {
        purchases: [
          { name: "broken", schedule: "* * * * * *", plan, recipients_file: folder },
          { name: "fine", schedule: "* * * * * *", plan, recipients: ["08036660101"] },
        ],
      }),
      port,
    );
    try {
      await waitReady(daemon);
      const failed = await waitFor(
        "a fire of the broken job to be recorded as failed",
        async () => {
          const found = await rows<{ reason: string }>(
            fixture.database.db,
            sql`select reason from schedule_fires where job_name = 'broken' and status = 'failed' limit 1`,
          );
          return found[0];
        },
        { daemons: [daemon] },
      );
      // The first failed fire is a scheduled one, or, when the daemon took over a second to start (a loaded machine),
      // the catch-up of the fire it missed meanwhile: the same reason either way.
      expect([
        `recipients file ${folder} is a directory, not a file`,
        `catch-up failed: recipients file ${folder} is a directory, not a file`,
      ]).toContain(failed.reason);
      await waitFor(
        "fires of the other job to be done after it",
        async () =>
          (await count(
            fixture.database,
            sql`select count(*) as n from schedule_fires where job_name = 'fine' and status = 'done'`,
          )) >= 2,
        { daemons: [daemon] },
      );
      const metrics = parsePrometheus((await daemon.get("/metrics")).body);
      expect(
        sampleValue(metrics, "topsync_fires_total", { job: "broken", result: "failed" }),
      ).toBeGreaterThan(0);
      expect(daemon.stderr()).toContain(`failed: recipients file ${folder} is a directory, not a file`);
      expect(daemon.child.exitCode).toBeNull();
      daemon.child.kill("SIGTERM");
      expect(await daemon.exited).toBe(0);
      expect(daemon.stderr()).not.toContain("Unhandled 'error' event");
      expect(
        await count(
          fixture.database,
          sql`select count(*) as n from schedule_fires where job_name = 'broken' and status = 'running'`,
        ),
      ).toBe(0);
    } finally {
      daemon.child.kill("SIGKILL");
    }
  });
});
