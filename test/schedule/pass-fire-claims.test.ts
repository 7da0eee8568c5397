// A pass without a daemon claims the fire it writes before writing it (`running` in schedule_fires, under a name
// whose session lock says whether it lives), on PostgreSQL with the sandbox over HTTP: a later pass that sees that
// fire superseded cannot record it missed while the first is buying it; a fire left running by a pass that died is
// written again by the next; one held by a live pass is left to it; and a fire whose writing failed is given back.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Config } from "../../src/config/index.js";
import { rows } from "../../src/db/client.js";
import { silentLogger } from "../../src/log/logger.js";
import { decideDueFires, type FireClaimer } from "../../src/purchases/pass-fires.js";
import { prepareRun, runPurchasePass } from "../../src/purchases/run-once.js";
import type { ResellerClient } from "../../src/reseller/client.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.js";
import { resellerFor } from "../helpers/clients.js";
import { testConfig } from "../helpers/config.js";
import { openTestDatabase, type TestDatabase } from "../helpers/db.js";

const PLAN = { network: "MTN", plan_id: "102" };
const HOUR = 3_600_000;
const MINUTE = 60_000;
/** A whole hour two days ago: the fires below are all in the past. */
const H = Math.floor(Date.now() / HOUR) * HOUR - 48 * HOUR;
const at = (ms: number) => new Date(ms);

let sandbox: Sandbox;
let test: TestDatabase;
let reseller: ResellerClient;
const configDir = mkdtempSync(join(tmpdir(), "topsync-claims-"));

beforeAll(async () => {
  sandbox = await startSandbox({ verifyLag: "reads", seed: 43 });
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  test = await openTestDatabase("postgres");
  reseller = resellerFor(sandbox);
  return async () => {
    await reseller.close();
    await test.drop();
  };
});

function config(extra: Record<string, unknown> = {}): Config {
  return testConfig(sandbox, {
    timezone: "UTC",
    purchases: [{ name: "hourly", schedule: "0 * * * *", plan: PLAN, recipients: ["08031260001"], ...extra }],
  });
}

/** The job first seen a day before H, its fire of H - 2h written by an earlier pass. */
async function history(): Promise<void> {
  await test.database.all(
    sql`insert into jobs (name, first_seen) values ('hourly', ${at(H - 24 * HOUR).toISOString()}::timestamptz)`,
  );
  await test.database.all(
    sql`insert into schedule_fires (fire_key, job_name, fire_time, status, claimed_by, finished_at)
        values (${`job:hourly:${at(H - 2 * HOUR).toISOString()}`}, 'hourly', ${at(H - 2 * HOUR).toISOString()}::timestamptz,
          'done', 'cli:1', now())`,
  );
}

async function fire(time: number): Promise<{ status: string; claimed_by: string | null } | undefined> {
  const [row] = await rows<{ status: string; claimed_by: string | null }>(
    test.database.db,
    sql`select status, claimed_by from schedule_fires where fire_key = ${`job:hourly:${at(time).toISOString()}`}`,
  );
  return row;
}

async function rowsOf(time: number): Promise<number> {
  const [row] = await rows<{ n: number | string }>(
    test.database.db,
    sql`select count(*) as n from purchases where job_name = 'hourly' and fire_time = ${at(time).toISOString()}::timestamptz`,
  );
  return Number(row?.n ?? 0);
}

async function missedNotices(): Promise<number> {
  const [row] = await rows<{ n: number | string }>(
    test.database.db,
    sql`select count(*) as n from notification_outbox where trigger = 'missed_fire'`,
  );
  return Number(row?.n ?? 0);
}

function pass(cfg: Config, now: number) {
  return runPurchasePass(
    { database: test.database, reseller, config: cfg, logger: silentLogger(), actor: "cli:test" },
    { now: at(now), configDir },
  );
}

function claimer(name: string): FireClaimer & { release(): Promise<void> } {
  let held: Promise<() => Promise<void>> | undefined;
  return {
    name,
    async hold() {
      held ??= test.database.holdRunLock(name);
      await held;
    },
    got() {},
    async release() {
      await (await held)?.();
    },
  };
}

describe("a pass's fire claims", () => {
  it("keeps a later pass from recording missed the fire an earlier pass is writing", async () => {
    const cfg = config();
    await history();
    // Pass A, at ten past H - 1h, decides and claims the fire of H - 1h ...
    const a = claimer("pass:test:a");
    const decided = await decideDueFires(test.database.db, {
      config: cfg,
      jobs: cfg.purchases,
      now: at(H - HOUR + 10 * MINUTE),
      firstSeen: new Map([["hourly", at(H - 24 * HOUR)]]),
      stopped: new Map(),
      actor: "cli:a",
      logger: silentLogger(),
      claimer: a,
      isAlive: (name) => test.database.isRunAlive(name),
    });
    expect(decided.map((f) => f.fireTime.toISOString())).toEqual([at(H - HOUR).toISOString()]);
    try {
      // ... pass B, at ten past H, runs whole: it buys the fire of H, and finds H - 1h taken, not missed ...
      await pass(cfg, H + 10 * MINUTE);
      expect(await fire(H)).toMatchObject({ status: "done" });
      expect(await fire(H - HOUR)).toEqual({ status: "running", claimed_by: "pass:test:a" });
      expect(await missedNotices()).toBe(0);
      // ... and A writes its fire.
      await prepareRun(test.database, cfg, {
        now: at(H - HOUR + 10 * MINUTE),
        actor: "cli:a",
        configDir,
        fires: decided,
        intake: false,
        claimedBy: a.name,
      });
    } finally {
      await a.release();
    }
    expect(await fire(H - HOUR)).toEqual({ status: "done", claimed_by: "pass:test:a" });
    expect(await rowsOf(H - HOUR)).toBe(1);
    expect(await missedNotices()).toBe(0);
  });

  it("writes again a fire left running by a pass that died, and leaves one a live pass holds", async () => {
    const cfg = config();
    await history();
    const live = claimer("pass:test:live");
    await live.hold();
    try {
      await test.database.all(
        sql`insert into schedule_fires (fire_key, job_name, fire_time, status, claimed_by) values
            (${`job:hourly:${at(H - HOUR).toISOString()}`}, 'hourly', ${at(H - HOUR).toISOString()}::timestamptz, 'running', 'pass:test:live')`,
      );
      await pass(cfg, H - HOUR + 10 * MINUTE);
      expect(await fire(H - HOUR)).toEqual({ status: "running", claimed_by: "pass:test:live" });
      expect(await rowsOf(H - HOUR)).toBe(0);
    } finally {
      await live.release();
    }
    // Its claimer gone, the next pass writes the fire and closes it.
    await pass(cfg, H - HOUR + 20 * MINUTE);
    const taken = await fire(H - HOUR);
    expect(taken?.status).toBe("done");
    expect(taken?.claimed_by).toMatch(/^pass:/);
    expect(taken?.claimed_by).not.toBe("pass:test:live");
    expect(await rowsOf(H - HOUR)).toBe(1);
    expect(await missedNotices()).toBe(0);
  });

  it("gives back a fire whose rows could not be written, and a later pass writes it", async () => {
    await history();
    const file = join(configDir, "staff.csv");
    const broken = config({ recipients_file: file });
    await expect(pass(broken, H - HOUR + 10 * MINUTE)).rejects.toThrow(/staff\.csv/);
    expect(await fire(H - HOUR)).toBeUndefined();
    writeFileSync(file, "phone\n08031260002\n");
    await pass(broken, H - HOUR + 20 * MINUTE);
    expect(await fire(H - HOUR)).toMatchObject({ status: "done" });
    expect(await rowsOf(H - HOUR)).toBe(2);
  });
});
