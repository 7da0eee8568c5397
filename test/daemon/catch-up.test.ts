// Catch-up through the daemon: a job that first appeared 30 minutes ago and a daemon that was down all that
// time runs the latest missed fire once and records every other one as skipped; a restart runs nothing twice.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rows } from "../../src/db/client.js";
import { daemonConfig, freePort, spawnDaemon, useLedger, waitFor, waitReady } from "./helpers.js";

const MINUTE = 60_000;
const RECIPIENTS = ["08031110001", "08031110002"];

interface FireRow {
  fire_time: Date | string;
  status: string;
  reason: string | null;
}

describe("start-up catch-up", () => {
  const fixture = useLedger({ seed: 4 });

  const fires = async (job: string) =>
    (
      await rows<FireRow>(
        fixture.database.db,
        sql`select fire_time, status, reason from schedule_fires where job_name = ${job} order by fire_time`,
      )
    ).map((f) => ({ ...f, time: new Date(f.fire_time).getTime() }));
  const purchasesByFire = async (job: string) =>
    new Map(
      (
        await rows<{ fire_time: Date | string; n: string | number }>(
          fixture.database.db,
          sql`select fire_time, count(*) as n from purchases where job_name = ${job} group by fire_time`,
        )
      ).map((r) => [new Date(r.fire_time).getTime(), Number(r.n)]),
    );

  it("runs the latest missed fire once, reports the others as skipped, and never replays them", {
    timeout: 120_000,
  }, async () => {
    const firstSeen = new Date(Math.floor(Date.now() / MINUTE) * MINUTE - 30 * MINUTE + 1000);
    await fixture.database.db.execute(
      sql`insert into jobs (name, first_seen) values ('minutely', ${firstSeen.toISOString()}::timestamptz)`,
    );
    const port = await freePort();
    const plan = { network: "MTN", plan_id: "102" };
    const file = daemonConfig(fixture.sandbox, fixture.url, port, {
      purchases: [
        { name: "minutely", schedule: "* * * * *", catch_up: "10m", plan, recipients: RECIPIENTS },
        // new in config: its latest fire predates it, so it is neither run nor reported missed
        { name: "fresh", schedule: "* * * * * *", plan, recipients: ["08031110003"] },
      ],
      intake: { enabled: false, poll_interval: "1s", batch_size: 100 },
    });
    let daemon = spawnDaemon(file, port);
    await waitReady(daemon);
    const minutely = await waitFor("the caught-up fire to be done", async () => {
      const found = await fires("minutely");
      return found.some((f) => f.status === "done") ? found : undefined;
    });

    // exactly one fire ran at start: the latest one, L; every minute after first_seen and before L is skipped
    const ran = minutely.filter((f) => f.status !== "skipped");
    const latest = ran[0]!.time;
    const skipped = minutely.filter((f) => f.time < latest);
    expect(new Set(skipped.map((f) => f.status))).toEqual(new Set(["skipped"]));
    const expected: number[] = [];
    for (let t = latest - MINUTE; t > firstSeen.getTime(); t -= MINUTE) expected.unshift(t);
    expect(skipped.map((f) => f.time)).toEqual(expected);
    for (const f of skipped) {
      expect(f.reason).toBe(
        f.time <= latest - 10 * MINUTE
          ? "missed by more than catch_up (10m)"
          : `superseded: only the latest missed fire (${new Date(latest).toISOString()}) runs`,
      );
    }
    // its purchases were created once, and bought
    await waitFor("the caught-up purchases to be bought", async () => {
      const [row] = await rows<{ n: string | number }>(
        fixture.database.db,
        sql`select count(*) as n from purchases where job_name = 'minutely' and state = 'succeeded'
            and fire_time = ${new Date(latest).toISOString()}::timestamptz`,
      );
      return Number(row?.n) === RECIPIENTS.length;
    });
    const byFire = await purchasesByFire("minutely");
    expect(byFire.get(latest)).toBe(RECIPIENTS.length);
    expect([...byFire.keys()].every((t) => t >= latest)).toBe(true);

    // the new job: its fires from before it appeared were never its own, neither run nor recorded missed (a
    // missed_fire notice for every job added), and none of its rows predate it
    const [fresh] = await rows<{ first_seen: Date | string }>(
      fixture.database.db,
      sql`select first_seen from jobs where name = 'fresh'`,
    );
    const freshSeen = new Date(fresh!.first_seen).getTime();
    const freshFires = await waitFor("the new job's first own fire", async () => {
      const found = await fires("fresh");
      return found.some((f) => f.time >= freshSeen) ? found : undefined;
    });
    expect(freshFires.filter((f) => f.time < freshSeen)).toEqual([]);
    expect([...(await purchasesByFire("fresh")).keys()].every((t) => t >= freshSeen)).toBe(true);

    // a restart adds nothing for the fires already decided
    daemon.child.kill("SIGTERM");
    expect(await daemon.exited).toBe(0);
    daemon = spawnDaemon(file, port);
    await waitReady(daemon);
    daemon.child.kill("SIGTERM");
    expect(await daemon.exited).toBe(0);
    const again = await fires("minutely");
    expect(again.filter((f) => f.time <= latest)).toEqual(minutely.filter((f) => f.time <= latest));
    expect((await purchasesByFire("minutely")).get(latest)).toBe(RECIPIENTS.length);
    const [dupes] = await rows<{ n: string | number }>(
      fixture.database.db,
      sql`select count(*) - count(distinct request_key) as n from purchases`,
    );
    expect(Number(dupes!.n)).toBe(0);
  });
});
