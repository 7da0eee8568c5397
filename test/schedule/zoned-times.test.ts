// Times an operator types for a job, in a zone that is not UTC (Lagos, the default, is UTC+1) on a machine whose own
// zone is another (New York): `--fire-time` without an offset names the fire on the job's wall clock, and a backfill
// of dates covers those whole days in the job's zone, the last one included — never the machine's zone or UTC.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, rows } from "../../src/db/client.js";
import type { Sandbox } from "../../src/sandbox/index.js";
import { runCli } from "../helpers/cli.js";
import { writeConfigFile } from "../helpers/config.js";
import { openScheduleLedger, type ScheduleLedger } from "./helpers.js";

const PLAN = { network: "MTN", plan_id: "102" };
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The machine's own zone, as an operator's laptop or a server left on its vendor's default might have it. */
const MACHINE = { TZ: "America/New_York" };

let ledger: ScheduleLedger;
let sandbox: Sandbox;
let url: string;
let database: Database;

beforeAll(async () => {
  ledger = await openScheduleLedger(41);
  ({ sandbox, url, database } = ledger);
});

afterAll(() => ledger?.close());

function config(jobs: Array<Record<string, unknown>>): string {
  return writeConfigFile(sandbox, url, { timezone: "Africa/Lagos", purchases: jobs }).file;
}

async function firesBought(job: string): Promise<string[]> {
  const found = await rows<{ fire_time: Date | string }>(
    database.db,
    sql`select distinct fire_time from purchases where job_name = ${job} order by fire_time`,
  );
  return found.map((r) => new Date(r.fire_time).toISOString());
}

/** A Lagos calendar day `back` days ago, as YYYY-MM-DD, and its midnight (23:00 UTC the day before). */
function lagosDay(back: number): { text: string; midnight: number } {
  const lagosNow = Date.now() + HOUR;
  const day = Math.floor(lagosNow / DAY) * DAY - back * DAY;
  return { text: new Date(day).toISOString().slice(0, 10), midnight: day - HOUR };
}

describe("times typed for a job are read in the job's time zone", () => {
  it("--fire-time without an offset names the fire on the job's clock, not the machine's", async () => {
    const file = config([{ name: "hourly", schedule: "0 * * * *", plan: PLAN, recipients: ["08031250001"] }]);
    const day = lagosDay(3);
    const run = await runCli(
      ["-c", file, "purchases", "run", "--job", "hourly", "--fire-time", `${day.text}T08:00`],
      MACHINE,
    );
    expect(run.code, run.stderr).toBe(0);
    // 08:00 in Lagos is 07:00 UTC (in New York it would be 13:00 UTC, another fire).
    expect(await firesBought("hourly")).toEqual([new Date(day.midnight + 8 * HOUR).toISOString()]);
  });

  it("backfills the whole days of --from and --to (dates) in the job's zone, the last day included", async () => {
    // 00:30 in Lagos is 23:30 UTC the day before: a UTC reading of the dates would miss the first day's fire.
    const file = config([{ name: "night", schedule: "30 0 * * *", plan: PLAN, recipients: ["08031250101"] }]);
    const [first, last] = [lagosDay(4), lagosDay(2)];
    const fire = (back: number) => new Date(lagosDay(back).midnight + 30 * 60_000).toISOString();
    const dry = await runCli(
      [
        "-c",
        file,
        "--json",
        "jobs",
        "backfill",
        "night",
        "--from",
        first.text,
        "--to",
        last.text,
        "--dry-run",
      ],
      MACHINE,
    );
    expect(dry.code, dry.stderr).toBe(0);
    const planned = JSON.parse(dry.stdout) as {
      fires_in_window: number;
      missing_fires: Array<{ fire_time: string }>;
      by_day: Array<{ day: string }>;
    };
    expect(planned.fires_in_window).toBe(3);
    expect(planned.missing_fires.map((f) => f.fire_time)).toEqual([fire(4), fire(3), fire(2)]);
    expect(planned.by_day.map((d) => d.day)).toEqual([lagosDay(4).text, lagosDay(3).text, lagosDay(2).text]);

    // One day, given as --from D --to D, is that day's fire (not an empty window refused as "not before").
    const one = await runCli(
      [
        "-c",
        file,
        "--json",
        "jobs",
        "backfill",
        "night",
        "--from",
        last.text,
        "--to",
        last.text,
        "--dry-run",
      ],
      MACHINE,
    );
    expect(one.code, one.stderr).toBe(0);
    expect((JSON.parse(one.stdout) as { missing_fires: Array<{ fire_time: string }> }).missing_fires).toEqual(
      [expect.objectContaining({ fire_time: fire(2) })],
    );
  });

  it("the backfill's table shows the window and the fires on the job's clock, as jobs list does", async () => {
    const file = config([{ name: "late", schedule: "30 0 * * *", plan: PLAN, recipients: ["08031250201"] }]);
    const [first, last] = [lagosDay(3), lagosDay(2)];
    const dry = await runCli(
      ["-c", file, "jobs", "backfill", "late", "--from", first.text, "--to", last.text, "--dry-run"],
      MACHINE,
    );
    expect(dry.code, dry.stderr).toBe(0);
    // 00:30 in Lagos (23:30 UTC the day before): the table once wrote 2026-…T23:30:00.000Z of the other day.
    expect(dry.stdout).toContain(
      `job late, ${first.text} 00:00 … ${last.text} 23:59 (Africa/Lagos): 2 fires`,
    );
    const fires = dry.stdout.split("\n").filter((line) => /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} /.test(line));
    expect(fires.map((line) => line.slice(0, 16))).toEqual([`${first.text} 00:30`, `${last.text} 00:30`]);
    expect(dry.stdout).not.toContain("Z ");
  });
});
