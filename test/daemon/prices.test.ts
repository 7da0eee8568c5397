// The daemon ends its purchase runs as `purchases run` does: the run's catalogue prices are recorded (kv
// "plan_prices"), so `topsync plan` sees price changes under `topsync run` too.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import { count, daemonConfig, freePort, spawnDaemon, useLedger, waitFor, waitReady } from "./helpers.js";

describe("a daemon fire", () => {
  const fixture = useLedger({ seed: 14 });

  it("records the plan prices it bought from", { timeout: 90_000 }, async () => {
    const port = await freePort();
    const before = await count(fixture.database, sql`select count(*) as n from kv where key = 'plan_prices'`);
    expect(before).toBe(0);
    const daemon = spawnDaemon(
      daemonConfig(fixture.sandbox, fixture.url, port, {
        purchases: [
          {
            name: "tick",
            schedule: "* * * * * *",
            plan: { network: "MTN", plan_id: "102" },
            recipients: ["08036670001"],
          },
        ],
      }),
      port,
    );
    try {
      await waitReady(daemon);
      // A fire is `done` once its rows are written; the prices are recorded when the purchase run that follows
      // ends, so that is what is waited for (a SIGTERM between the two would stop the run first).
      await waitFor(
        "a purchase run to record the prices",
        async () =>
          (await count(fixture.database, sql`select count(*) as n from kv where key = 'plan_prices'`)) > 0 &&
          (await count(
            fixture.database,
            sql`select count(*) as n from purchases where state = 'succeeded'`,
          )) > 0,
        { daemons: [daemon] },
      );
      daemon.child.kill("SIGTERM");
      expect(await daemon.exited).toBe(0);
    } finally {
      daemon.child.kill("SIGKILL");
    }
    const [recorded] = await rows<{ value: { as_of: string; plans: Record<string, { price: string }> } }>(
      fixture.database.db,
      sql`select value from kv where key = 'plan_prices'`,
    );
    expect(recorded?.value.plans["1:102"]).toMatchObject({ network: "MTN", price: "305.00" });
    expect(Object.keys(recorded?.value.plans ?? {}).length).toBeGreaterThan(20);
  });
});
