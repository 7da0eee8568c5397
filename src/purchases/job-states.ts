// A job's state in the ledger — active, suspended (by a person or by config) or paused (by its pause_on) —
// and every change of it as a `job_events` row with its actor and reason. What the CLI's `jobs suspend/resume`,
// the console and the executor's pause call; the daemon's fire claim and every purchase claim read the same
// rows, so a change holds on every replica at once. Each change also sends a NOTIFY on JOB_STATES_CHANNEL
// (PostgreSQL), which wakes the daemons.
import { sql } from "drizzle-orm";
import { type Executor, rows } from "../db/client.js";
import type { JOB_STATES } from "../db/schema.js";
import { jobPauseNotices } from "../notify/outbox/write.js";

export type JobState = (typeof JOB_STATES)[number];

/** Daemons LISTEN here: a job was suspended, resumed or paused (the payload is its name). */
export const JOB_STATES_CHANNEL = "topsync_job_states";

/** The actor of a change made by config (`suspended: true`). */
export const CONFIG_ACTOR = "config";

export interface JobStatus {
  name: string;
  state: JobState;
  note: string | null;
  firstSeen: Date;
  changedAt: Date | null;
  changedBy: string | null;
}

export interface StateChange {
  /** Who: `cli:<user>`, `console:<user>`, `config`, or a run's actor. */
  actor: string;
  reason?: string;
}

export interface ChangeResult {
  /** False when the job already was in the wanted state (nothing written). */
  changed: boolean;
  from: JobState;
  status: JobStatus;
}

interface StatusRow {
  name: string;
  state: string;
  note: string | null;
  first_seen: Date | string;
  state_changed_at: Date | string | null;
  state_changed_by: string | null;
}

function toStatus(row: StatusRow): JobStatus {
  return {
    name: row.name,
    state: row.state as JobState,
    note: row.note,
    firstSeen: new Date(row.first_seen),
    changedAt: row.state_changed_at ? new Date(row.state_changed_at) : null,
    changedBy: row.state_changed_by,
  };
}

/** Every job the ledger knows, by name. */
export async function readJobStates(db: Executor): Promise<Map<string, JobStatus>> {
  const found = await rows<StatusRow>(
    db,
    sql`select name, state, note, first_seen, state_changed_at, state_changed_by from jobs order by name`,
  );
  return new Map(found.map((row) => [row.name, toStatus(row)]));
}

/** One job's state; a job the ledger has not seen yet is active. */
export async function readJobState(db: Executor, job: string): Promise<JobStatus | undefined> {
  const [row] = await rows<StatusRow>(
    db,
    sql`select name, state, note, first_seen, state_changed_at, state_changed_by from jobs where name = ${job}`,
  );
  return row ? toStatus(row) : undefined;
}

/**
 * Moves a job to `to` when it is in one of `from`: the job's row is made if missing, then one statement makes the
 * change, its event and the NOTIFY. Returns the job as it is afterwards and whether this call changed it.
 */
async function changeState(
  db: Executor,
  job: string,
  from: readonly JobState[],
  to: JobState,
  change: StateChange,
  note: string | null,
): Promise<ChangeResult> {
  await rows(db, sql`insert into jobs (name) values (${job}) on conflict (name) do nothing`);
  const fromList = `{${from.join(",")}}`;
  const [row] = await rows<StatusRow & { previous: string }>(
    db,
    sql`with moved as (
          update jobs j set state = ${to}, note = ${note}, state_changed_at = now(),
            state_changed_by = ${change.actor}
          from (select state as previous from jobs where name = ${job}) c
          where j.name = ${job} and j.state = any(${fromList}::text[])
          returning j.name, j.state, j.note, j.first_seen, j.state_changed_at, j.state_changed_by, c.previous
        ), event as (
          insert into job_events (job_name, actor, from_state, to_state, reason)
          select name, ${change.actor}, previous, state, ${change.reason ?? null} from moved
        ), told as (
          select pg_notify(${JOB_STATES_CHANNEL}, name) from moved
        )
        select m.*, (select count(*) from told) as told from moved m`,
  );
  if (row) return { changed: true, from: row.previous as JobState, status: toStatus(row) };
  const status = await readJobState(db, job);
  if (!status) throw new Error(`job ${job} could not be recorded in the ledger`);
  return { changed: false, from: status.state, status };
}

/**
 * Suspends a job: its fires are skipped (recorded as missed) and its queued purchases are not claimed, on every
 * replica, until `resumeJob`. A paused job becomes suspended (the person's reason replaces the cause).
 */
export function suspendJob(db: Executor, job: string, change: StateChange): Promise<ChangeResult> {
  return changeState(db, job, ["active", "paused"], "suspended", change, change.reason ?? null);
}

/** Resumes a suspended or paused job: it fires again, and its queued purchases are claimed again. */
export function resumeJob(db: Executor, job: string, change: StateChange): Promise<ChangeResult> {
  return changeState(db, job, ["suspended", "paused"], "active", change, null);
}

export interface PauseCause {
  /** Who saw it: the run's actor. */
  actor: string;
  run: string;
  /** What happened, e.g. "3 purchases in a row with an unknown outcome (pause_on.consecutive_unknown: 3)". */
  cause: string;
  /** The purchases that caused it. */
  purchases: readonly number[];
}

/**
 * Pauses an active job (a suspended one stays suspended), with a note naming the cause and the purchases, and a
 * `run_failed` notification written by the same statement. True when this call paused it.
 */
export async function pauseJob(db: Executor, job: string, cause: PauseCause): Promise<boolean> {
  const ids = cause.purchases.slice(0, 20);
  const more = cause.purchases.length > ids.length ? ` and ${cause.purchases.length - ids.length} more` : "";
  const note = `${cause.cause}; purchases ${ids.join(", ")}${more}`;
  const paused = await rows<{ name: string }>(
    db,
    sql`with moved as (
          update jobs set state = 'paused', note = ${note}, state_changed_at = now(), state_changed_by = ${cause.actor}
          where name = ${job} and state = 'active'
          returning name, note
        ), event as (
          insert into job_events (job_name, actor, from_state, to_state, reason)
          select name, ${cause.actor}, 'active', 'paused', note from moved returning id, job_name, reason
        ), notice as (${jobPauseNotices(sql`select id, job_name, reason, ${cause.run}::text as run from event`)}),
        told as (select pg_notify(${JOB_STATES_CHANNEL}, name) from moved)
        select name, (select count(*) from told) as told from moved`,
  );
  return paused.length === 1;
}

export interface JobEvent {
  job: string;
  at: Date;
  actor: string;
  from: string | null;
  to: string;
  reason: string | null;
}

/** A job's state changes in (since, until], oldest first; every job's when `job` is undefined. */
export async function readJobEvents(
  db: Executor,
  options: { job?: string; since: Date; until?: Date; limit?: number },
): Promise<JobEvent[]> {
  const found = await rows<{
    job_name: string;
    at: Date | string;
    actor: string;
    from_state: string | null;
    to_state: string;
    reason: string | null;
  }>(
    db,
    sql`select job_name, at, actor, from_state, to_state, reason from job_events
        where at > ${options.since.toISOString()}::timestamptz
          ${options.until ? sql`and at <= ${options.until.toISOString()}::timestamptz` : sql``}
          ${options.job ? sql`and job_name = ${options.job}` : sql``}
        order by at, id limit ${options.limit ?? 10_000}`,
  );
  return found.map((e) => ({
    job: e.job_name,
    at: new Date(e.at),
    actor: e.actor,
    from: e.from_state,
    to: e.to_state,
    reason: e.reason,
  }));
}

/**
 * Whether the job was active at each instant, from its events: the state before the first event in the window is
 * the `from` of that event (or, with none, its current state).
 */
export function activeAt(events: readonly JobEvent[], current: JobState): (t: Date) => boolean {
  return (t: Date) => {
    let state: string = events.length > 0 ? (events[0]!.from ?? "active") : current;
    for (const e of events) {
      if (e.at.getTime() > t.getTime()) break;
      state = e.to;
    }
    return state === "active";
  };
}

/** A run of a suspended or paused job that a person forced: an event in the job's history, its state unchanged. */
export async function recordForcedRun(db: Executor, job: string, change: StateChange): Promise<void> {
  await rows(
    db,
    sql`insert into job_events (job_name, actor, from_state, to_state, reason)
        select name, ${change.actor}, state, state, ${`forced run: ${change.reason ?? ""}`} from jobs where name = ${job}`,
  );
}

/** Why a job may not run now, or undefined when it is active. */
export function stoppedMessage(job: string, stopped: { state: string; note: string | null }): string {
  return `job "${job}" is ${stopped.state}${stopped.note ? ` (${stopped.note})` : ""}`;
}

/** How far back a job's latest purchases are read for the unknown outcomes in a row its earlier runs ended with. */
const UNKNOWN_STREAK_DAYS = 7;

/**
 * Per job, the purchases its latest runs ended with whose outcome is unknown (in_doubt), newest last: the job's
 * latest `cap` purchases sent (within a week) whose outcome came after it last became active, counted back to the first that got an
 * answer. A purchase in flight (`submitting`, another run's) or queued again for a retry is skipped; one a person has settled since is an answer.
 */
export async function readUnknownStreaks(
  db: Executor,
  jobs: ReadonlyArray<{ name: string; cap: number }>,
): Promise<Map<string, number[]>> {
  const streaks = new Map<string, number[]>();
  if (jobs.length === 0) return streaks;
  const found = await rows<{ job: string; id: number | string; state: string }>(
    db,
    sql`select j.name as job, p.id, p.state
        from jsonb_to_recordset(${JSON.stringify(jobs)}::jsonb) as j(name text, cap int)
        cross join lateral (
          select p.id, p.state,
            case when p.state = 'in_doubt' then p.updated_at else coalesce(p.submitted_at, p.updated_at) end as outcome_at
          from purchases p
          where p.job_name = j.name and p.attempts > 0 and p.state not in ('submitting', 'queued')
            and p.created_at > now() - ${UNKNOWN_STREAK_DAYS} * interval '1 day'
            and p.updated_at > coalesce((select max(e.at) from job_events e where e.job_name = j.name and e.to_state = 'active'), '-infinity')
          order by outcome_at desc, p.id desc limit j.cap
        ) p
        order by j.name, p.outcome_at desc, p.id desc`,
  );
  const ended = new Set<string>();
  for (const row of found) {
    if (ended.has(row.job)) continue;
    if (row.state !== "in_doubt") {
      ended.add(row.job);
      continue;
    }
    streaks.set(row.job, [Number(row.id), ...(streaks.get(row.job) ?? [])]);
  }
  return streaks;
}
