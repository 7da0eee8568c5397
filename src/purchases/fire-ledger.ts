// The `schedule_fires` table: one row per fire of a job or of the website loop, inserted once across all
// replicas. Each function is one statement; the primary key on fire_key is what elects a single runner.
import { sql } from "drizzle-orm";
import { type Executor, rows } from "../db/client.js";
import { missedFireNotices } from "../notify/outbox/write.js";

export type FireStatus = "running" | "done" | "failed" | "skipped";

export interface FireRef {
  key: string;
  /** A purchase job's name, or WEBSITES_JOB for the website loop. */
  job: string;
  fireTime: Date;
}

/** schedule_fires.job_name of the website loop: parentheses are not allowed in job names, so it cannot clash. */
export const WEBSITES_JOB = "(websites)";

/** The node-cron task name of a purchase job; its fire keys are then `job:<name>:<ISO time>` (a purchase's key adds `:<phone>`). */
export function jobTaskName(job: string): string {
  return `job:${job}`;
}

/** The key node-cron gives a coordinator: the task name, ":", and the fire time in ISO form. */
export function fireKeyOf(taskName: string, fireTime: Date): string {
  return `${taskName}:${fireTime.toISOString()}`;
}

/** The slot (whole second) node-cron fires for a fire time, which the fire's key is made from. */
export function slotOf(fireTime: Date): Date {
  return new Date(Math.floor(fireTime.getTime() / 1000) * 1000);
}

/** A purchase job's fire as `schedule_fires` records it: the key node-cron's coordinator would give it. */
export function jobFireRef(job: string, fireTime: Date): FireRef {
  const slot = slotOf(fireTime);
  return { key: fireKeyOf(jobTaskName(job), slot), job, fireTime: slot };
}

/**
 * Inserts the fire as `running`; true when this caller inserted it (elected), false when it already existed. A fire
 * of a suspended or paused job is inserted as `skipped` instead (a missed fire, with its `missed_fire`
 * notification), by the same statement that reads the job's state, and false is returned: a suspension committed
 * before a fire holds on every replica.
 */
export async function claimFire(db: Executor, fire: FireRef, claimedBy: string): Promise<boolean> {
  const at = fire.fireTime.toISOString();
  const [result] = await rows<{ ran: number | string }>(
    db,
    sql`with stopped as (
          select state, note from jobs where name = ${fire.job} and state <> 'active'
        ), ran as (
          insert into schedule_fires (fire_key, job_name, fire_time, status, claimed_by)
          select ${fire.key}, ${fire.job}, ${at}::timestamptz, 'running', ${claimedBy}
          where not exists (select 1 from stopped)
          on conflict (fire_key) do nothing returning fire_key
        ), skipped as (
          insert into schedule_fires (fire_key, job_name, fire_time, status, reason, claimed_by, finished_at)
          select ${fire.key}, ${fire.job}, ${at}::timestamptz, 'skipped',
            'the job is ' || s.state || coalesce(': ' || s.note, ''), ${claimedBy}, now()
          from stopped s
          on conflict (fire_key) do nothing returning fire_key, job_name, fire_time, reason
        ), notice as (${missedFireNotices(sql`select * from skipped`)})
        select (select count(*) from ran) as ran`,
  );
  return Number(result?.ran ?? 0) === 1;
}

/**
 * Claims a fire for a pass without a daemon: inserted `running` by `claimedBy` ("claimed"), or the row that holds
 * its key already (undefined when a concurrent claim is not visible yet: not this caller's either way).
 */
export async function claimRunningFire(
  db: Executor,
  fire: FireRef,
  claimedBy: string,
): Promise<"claimed" | { status: FireStatus; claimedBy: string | null } | undefined> {
  const [row] = await rows<{ ran: number | string; status: FireStatus | null; claimed_by: string | null }>(
    db,
    sql`with ran as (
          insert into schedule_fires (fire_key, job_name, fire_time, status, claimed_by)
          values (${fire.key}, ${fire.job}, ${fire.fireTime.toISOString()}::timestamptz, 'running', ${claimedBy})
          on conflict (fire_key) do nothing returning fire_key
        )
        select (select count(*) from ran) as ran, f.status, f.claimed_by
        from (select 1) x left join schedule_fires f on f.fire_key = ${fire.key}`,
  );
  if (Number(row?.ran ?? 0) === 1) return "claimed";
  return row?.status ? { status: row.status, claimedBy: row.claimed_by } : undefined;
}

/** Gives back the fires of `keys` a pass claimed and did not write (its writing failed): a later pass writes them. */
export async function releaseClaims(db: Executor, keys: readonly string[], claimedBy: string): Promise<void> {
  if (keys.length === 0) return;
  await rows(
    db,
    sql`delete from schedule_fires where fire_key in (select json_array_elements_text(${JSON.stringify(keys)}::json))
          and status = 'running' and claimed_by = ${claimedBy}`,
  );
}

/** Closes a running fire; a fire already closed (or taken over by another replica) is left alone. */
export async function finishFire(
  db: Executor,
  key: string,
  claimedBy: string,
  status: "done" | "failed",
  reason?: string,
): Promise<boolean> {
  const moved = await rows<{ fire_key: string }>(
    db,
    sql`update schedule_fires set status = ${status}, reason = coalesce(${reason ?? null}, reason), finished_at = now()
        where fire_key = ${key} and status = 'running' and claimed_by = ${claimedBy} returning fire_key`,
  );
  return moved.length === 1;
}

/** Records fires that will never run, with why; fires already recorded are left alone. Returns how many are new. */
export async function recordSkippedFires(
  db: Executor,
  fires: Array<FireRef & { reason: string }>,
  recordedBy: string,
): Promise<number> {
  if (fires.length === 0) return 0;
  const payload = JSON.stringify(
    fires.map((f) => ({
      fire_key: f.key,
      job_name: f.job,
      fire_time: f.fireTime.toISOString(),
      reason: f.reason,
    })),
  );
  // Each fire newly recorded skipped is a `missed_fire` notification, written by the same statement.
  const inserted = await rows<{ fire_key: string }>(
    db,
    sql`with inserted as (
          insert into schedule_fires (fire_key, job_name, fire_time, status, reason, claimed_by, finished_at)
          select fire_key, job_name, fire_time, 'skipped', reason, ${recordedBy}, now()
          from jsonb_to_recordset(${payload}::jsonb) as v(fire_key text, job_name text, fire_time timestamptz, reason text)
          on conflict (fire_key) do nothing returning fire_key, job_name, fire_time, reason
        ), notice as (${missedFireNotices(sql`select * from inserted`)})
        select fire_key from inserted`,
  );
  return inserted.length;
}

/** The newest fire recorded for a job, whatever its status. */
export async function lastRecordedFire(db: Executor, job: string): Promise<Date | undefined> {
  const [row] = await rows<{ last: Date | string | null }>(
    db,
    sql`select max(fire_time) as last from schedule_fires where job_name = ${job}`,
  );
  return row?.last ? new Date(row.last) : undefined;
}

export interface RunningFire extends FireRef {
  claimedBy: string;
}

/** Fires some replica is running (or was, when it died). */
export async function runningFires(db: Executor): Promise<RunningFire[]> {
  const found = await rows<{
    fire_key: string;
    job_name: string;
    fire_time: Date | string;
    claimed_by: string;
  }>(
    db,
    sql`select fire_key, job_name, fire_time, claimed_by from schedule_fires
        where status = 'running' and claimed_by is not null order by fire_time limit 1000`,
  );
  return found.map((r) => ({
    key: r.fire_key,
    job: r.job_name,
    fireTime: new Date(r.fire_time),
    claimedBy: r.claimed_by,
  }));
}

/** Moves a running fire from a dead replica to `to`; true when this caller got it. */
export async function takeOverFire(db: Executor, key: string, from: string, to: string): Promise<boolean> {
  const moved = await rows<{ fire_key: string }>(
    db,
    sql`update schedule_fires set claimed_by = ${to}, reason = ${`taken over from ${from}, which stopped`}
        where fire_key = ${key} and status = 'running' and claimed_by = ${from} returning fire_key`,
  );
  return moved.length === 1;
}

/** What a fire's own run did (bought, rejected, held, queued), for `jobs list`. */
export async function recordFireOutcome(db: Executor, key: string, outcome: string): Promise<void> {
  await rows(db, sql`update schedule_fires set outcome = ${outcome} where fire_key = ${key}`);
}
