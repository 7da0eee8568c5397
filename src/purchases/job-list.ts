// What `topsync jobs list` (and the console's jobs page) shows of each configured job: its schedule, next fires,
// last fire and what it did, state and note, and the fires it missed. One statement reads the ledger's part.
import { sql } from "drizzle-orm";
import type { Config, PurchaseJob } from "../config/index.js";
import { type Executor, rows } from "../db/client.js";
import { cronNextFire } from "../time/cron.js";
import type { JobState } from "./job-states.js";

/** How many next fires a listing shows. */
export const NEXT_FIRES = 3;

export interface LastFire {
  fireTime: Date;
  /** bought, rejected, held, queued or paused (the fire's run), skipped (missed), failed, running, or written. */
  outcome: string;
  reason: string | null;
}

export interface JobListing {
  name: string;
  enabled: boolean;
  schedule: string | null;
  at: Date | null;
  timezone: string;
  state: JobState;
  note: string | null;
  changedAt: Date | null;
  changedBy: string | null;
  /** The next fires after now (none for a disabled or on-demand job); a stopped job's will be skipped. */
  nextFires: Date[];
  lastFire: LastFire | null;
  /** Fires recorded as skipped: missed by downtime beyond catch_up, or while suspended or paused. */
  missedFires: number;
  /**
   * False for a job the config no longer has that the ledger holds suspended or paused: its queued purchases wait
   * until a person resumes it (`jobs resume` takes it) or cancels them.
   */
  inConfig: boolean;
  /** A job not in the config: its queued purchases (undefined for a configured job). */
  queued?: number;
}

interface LedgerRow {
  name: string;
  state: string;
  note: string | null;
  state_changed_at: Date | string | null;
  state_changed_by: string | null;
  missed: number | string | null;
  fire_time: Date | string | null;
  status: string | null;
  outcome: string | null;
  reason: string | null;
}

/** Every job of the config, in its order, with what the ledger knows of it. */
export async function listJobs(db: Executor, config: Config, now: Date): Promise<JobListing[]> {
  const names = JSON.stringify(config.purchases.map((job) => job.name));
  const found = await rows<LedgerRow>(
    db,
    sql`select j.name, j.state, j.note, j.state_changed_at, j.state_changed_by,
          (select c.fires from schedule_fire_counts c where c.job_name = j.name and c.status = 'skipped') as missed,
          l.fire_time, l.status, l.outcome, l.reason
        from jobs j
        left join lateral (
          select f.fire_time, f.status, f.outcome, f.reason from schedule_fires f
          where f.job_name = j.name order by f.fire_time desc limit 1
        ) l on true
        where j.name in (select json_array_elements_text(${names}::json))`,
  );
  const byName = new Map(found.map((row) => [row.name, row]));
  const configured = config.purchases.map((job) => listing(job, config.timezone, now, byName.get(job.name)));
  return [...configured, ...(await stoppedElsewhere(db, names, config.timezone))];
}

/**
 * The jobs the ledger holds suspended or paused that the config no longer has (renamed or removed while stopped):
 * nothing else shows them, and their queued purchases would wait unseen.
 */
async function stoppedElsewhere(db: Executor, names: string, timezone: string): Promise<JobListing[]> {
  const found = await rows<LedgerRow & { queued: number | string }>(
    db,
    sql`select j.name, j.state, j.note, j.state_changed_at, j.state_changed_by,
          (select c.fires from schedule_fire_counts c where c.job_name = j.name and c.status = 'skipped') as missed,
          l.fire_time, l.status, l.outcome, l.reason,
          (select count(*) from purchases p where p.job_name = j.name and p.state = 'queued') as queued
        from jobs j
        left join lateral (
          select f.fire_time, f.status, f.outcome, f.reason from schedule_fires f
          where f.job_name = j.name order by f.fire_time desc limit 1
        ) l on true
        where j.state <> 'active' and j.name not in (select json_array_elements_text(${names}::json))
        order by j.name`,
  );
  return found.map((row) => ({
    name: row.name,
    enabled: false,
    schedule: null,
    at: null,
    timezone,
    state: row.state as JobState,
    note: row.note,
    changedAt: row.state_changed_at ? new Date(row.state_changed_at) : null,
    changedBy: row.state_changed_by,
    nextFires: [],
    lastFire: row.fire_time ? lastFire(row) : null,
    missedFires: Number(row.missed ?? 0),
    inConfig: false,
    queued: Number(row.queued),
  }));
}

function listing(
  job: PurchaseJob,
  globalTimeZone: string,
  now: Date,
  row: LedgerRow | undefined,
): JobListing {
  const timezone = job.timezone ?? globalTimeZone;
  return {
    name: job.name,
    enabled: job.enabled,
    schedule: job.schedule ?? null,
    at: job.at ?? null,
    timezone,
    state: (row?.state ?? (job.suspended ? "suspended" : "active")) as JobState,
    note: row?.note ?? null,
    changedAt: row?.state_changed_at ? new Date(row.state_changed_at) : null,
    changedBy: row?.state_changed_by ?? null,
    nextFires: job.enabled ? nextFires(job, timezone, now) : [],
    lastFire: row?.fire_time ? lastFire(row) : null,
    missedFires: Number(row?.missed ?? 0),
    inConfig: true,
  };
}

function lastFire(row: LedgerRow): LastFire {
  const outcome =
    row.status === "skipped" || row.status === "failed" || row.status === "running"
      ? row.status
      : (row.outcome ?? "written");
  return { fireTime: new Date(row.fire_time!), outcome, reason: row.reason };
}

function nextFires(job: PurchaseJob, timeZone: string, now: Date): Date[] {
  if (job.at) return job.at.getTime() > now.getTime() ? [job.at] : [];
  if (!job.schedule) return [];
  const fires: Date[] = [];
  let after = now;
  while (fires.length < NEXT_FIRES) {
    const next = cronNextFire(job.schedule, timeZone, after);
    if (!next) break;
    fires.push(next);
    after = next;
  }
  return fires;
}

/** A fire recorded as skipped, never run. */
export interface MissedFire {
  job: string;
  fireTime: Date;
  reason: string | null;
}

/** How many shown per job in a report; the count covers them all. */
const MISSED_SHOWN = 50;

/**
 * The fires each job missed since `since` (newest first, up to 50 a job, with the count of all), read per job along
 * the fires' (job, time) index.
 */
export async function readMissedFires(
  db: Executor,
  since: Date,
): Promise<{ fires: MissedFire[]; byJob: Array<{ job: string; missed: number }> }> {
  const at = since.toISOString();
  const [fires, counts] = await Promise.all([
    rows<{ name: string; fire_time: Date | string; reason: string | null }>(
      db,
      sql`select j.name, x.fire_time, x.reason from jobs j cross join lateral (
            select f.fire_time, f.reason from schedule_fires f
            where f.job_name = j.name and f.fire_time > ${at}::timestamptz and f.status = 'skipped'
            order by f.fire_time desc limit ${MISSED_SHOWN}) x
          order by x.fire_time desc, j.name`,
    ),
    rows<{ name: string; n: number | string }>(
      db,
      sql`select j.name, (select count(*) from schedule_fires f where f.job_name = j.name
            and f.fire_time > ${at}::timestamptz and f.status = 'skipped') as n
          from jobs j order by j.name`,
    ),
  ]);
  return {
    fires: fires.map((f) => ({ job: f.name, fireTime: new Date(f.fire_time), reason: f.reason })),
    byJob: counts.filter((c) => Number(c.n) > 0).map((c) => ({ job: c.name, missed: Number(c.n) })),
  };
}
