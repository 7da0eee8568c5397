// The scheduled fires of a pass without a daemon (`purchases run` from an operator's crontab, the demo), decided
// as the daemon's catch-up decides them and recorded in `schedule_fires` under the same keys: the latest fire of
// each job within catch_up is written, unless it came while the job was suspended or paused; every fire the job
// missed since the last one recorded (downtime beyond catch_up, superseded by a later one, or while stopped) is
// recorded skipped with its `missed_fire` notification, once whichever pass or replica records it first.
import { sql } from "drizzle-orm";
import type { Config, PurchaseJob } from "../config/index.js";
import { type Executor, rows } from "../db/client.js";
import type { Logger } from "../log/logger.js";
import { planCatchUp, REPORT_WINDOW_MS, type SkippedFire } from "./catch-up.js";
import {
  claimRunningFire,
  type FireRef,
  jobFireRef,
  type RunningFire,
  recordSkippedFires,
  takeOverFire,
} from "./fire-ledger.js";
import { activeAt, type JobState, readJobEvents } from "./job-states.js";

/**
 * A fire a pass writes; a scheduled one carries the key the pass claimed it under in `schedule_fires` (`running`,
 * closed `done` once its rows are in, or given back if writing them fails).
 */
export type PassFire = { job: PurchaseJob; fireTime: Date; claimed?: string };

/**
 * Who claims a pass's fires: a name unique to the process, and the session lock under that name (taken when the first
 * fire is claimed) by which a pass or daemon that finds the fire still `running` knows whether its claimer lives.
 */
export interface FireClaimer {
  name: string;
  hold(): Promise<void>;
  /** Told each fire it got (claimed or taken over). */
  got(key: string): void;
}

export interface DueFiresInput {
  config: Config;
  jobs: readonly PurchaseJob[];
  now: Date;
  firstSeen: ReadonlyMap<string, Date>;
  /** The jobs suspended or paused now, with the note. */
  stopped: ReadonlyMap<string, { state: string; note: string | null }>;
  /** A job the pass runs whatever its state (`--force`). */
  forceJob?: string;
  actor: string;
  logger: Pick<Logger, "warn">;
  /** Decide only (a dry run): nothing is recorded or claimed, and the log says what a run would do. */
  dryRun?: boolean;
  /** Claims the fires to write (not needed for a dry run). */
  claimer?: FireClaimer;
  /** Whether the claimer of a fire left `running` still lives (its lock is held). */
  isAlive?: (claimer: string) => Promise<boolean>;
}

/**
 * The fires due now of `jobs`, with the fires they missed recorded as skipped. A fire already recorded (written by
 * an earlier pass or a daemon, or recorded skipped) is neither written again nor counted missed again.
 */
export async function decideDueFires(db: Executor, input: DueFiresInput): Promise<PassFire[]> {
  const { now, config, logger, dryRun } = input;
  const written = dryRun ? "would not be bought" : "is not written";
  const jobs = input.jobs.filter((job) => job.enabled && (job.schedule || job.at));
  if (jobs.length === 0) return [];
  const since = new Date(now.getTime() - Math.max(REPORT_WINDOW_MS, ...jobs.map((job) => job.catch_up)) - 1);
  const names = jobs.map((job) => job.name);
  const [recorded, history, orphans] = await Promise.all([
    lastRecordedFires(db, names),
    readJobEvents(db, { since }),
    dryRun ? [] : runningFiresOf(db, names, since),
  ]);
  const due: PassFire[] = [];
  for (const job of jobs) {
    const plan = planCatchUp({
      job,
      globalTimeZone: config.timezone,
      now,
      firstSeen: input.firstSeen.get(job.name) ?? now,
      lastRecorded: recorded.get(job.name),
      lookBackUnrecorded: false,
    });
    const forced = job.name === input.forceJob;
    const stoppedNow = forced ? undefined : input.stopped.get(job.name);
    const current = (input.stopped.get(job.name)?.state ?? "active") as JobState;
    const wasActive = activeAt(
      history.filter((e) => e.job === job.name),
      current,
    );
    const skipped: SkippedFire[] = plan.skipped.map((s) =>
      forced || wasActive(s.fireTime) ? s : { ...s, reason: "the job was suspended or paused at that time" },
    );
    if (plan.run && stoppedNow) {
      logger.warn(
        `job "${job.name}" is ${stoppedNow.state}${stoppedNow.note ? ` (${stoppedNow.note})` : ""}: its fire ${plan.run.toISOString()} ${written}, and is counted missed`,
      );
      skipped.unshift({
        fireTime: plan.run,
        reason: `the job is ${stoppedNow.state}${stoppedNow.note ? `: ${stoppedNow.note}` : ""}`,
      });
    } else if (plan.run && !forced && !wasActive(plan.run)) {
      logger.warn(
        `job ${job.name} was suspended or paused at its fire ${plan.run.toISOString()}, which ${written}: a fire missed while a job was stopped is never bought later, and is counted missed (topsync jobs backfill, if it is still wanted)`,
      );
      skipped.unshift({ fireTime: plan.run, reason: "the job was suspended or paused at that time" });
    } else if (plan.run && dryRun) {
      due.push({ job, fireTime: plan.run });
    } else if (plan.run) {
      // Claimed before a row is written: a pass that would record it missed (superseded, seen later) then finds it
      // taken, and a fire some pass recorded missed first is not written.
      const claimed = await claimFireFor(db, input, jobFireRef(job.name, plan.run));
      if (claimed) due.push({ job, fireTime: plan.run, claimed });
    }
    if (!dryRun && input.claimer && !stoppedNow) {
      // A fire within catch_up whose pass or replica died while writing it is written again (adding what is missing).
      for (const orphan of orphans.filter(
        (o) => o.job === job.name && o.fireTime.getTime() !== plan.run?.getTime(),
      )) {
        if (now.getTime() - orphan.fireTime.getTime() >= job.catch_up) continue;
        const claimed = await takeOverIfDead(db, input, orphan);
        if (claimed) due.push({ job, fireTime: job.at ?? orphan.fireTime, claimed });
      }
    }
    if (dryRun) continue;
    const recordedNow = await recordSkippedFires(
      db,
      skipped.map((s) => ({ ...jobFireRef(job.name, s.fireTime), reason: s.reason })),
      input.actor,
    );
    if (recordedNow > 0) {
      const newest = skipped[0]!;
      const oldest = skipped[skipped.length - 1]!;
      logger.warn(
        `job ${job.name}: ${recordedNow} missed fire${recordedNow === 1 ? "" : "s"} recorded skipped, never run (${oldest.fireTime.toISOString()} … ` +
          `${newest.fireTime.toISOString()}; newest: ${newest.reason})`,
      );
    }
  }
  return due;
}

/** Claims `fire` for the pass: its key when this pass may write it, else undefined (recorded, or taken by a live claimer). */
async function claimFireFor(db: Executor, input: DueFiresInput, fire: FireRef): Promise<string | undefined> {
  const claimer = input.claimer;
  if (!claimer) return undefined;
  await claimer.hold();
  const found = await claimRunningFire(db, fire, claimer.name);
  if (found === "claimed") {
    claimer.got(fire.key);
    return fire.key;
  }
  if (found?.status !== "running" || found.claimedBy === null) return undefined;
  return takeOverIfDead(db, input, { ...fire, claimedBy: found.claimedBy });
}

/** Takes over a `running` fire whose claimer is dead: its key when this pass got it. */
async function takeOverIfDead(
  db: Executor,
  input: DueFiresInput,
  fire: FireRef & { claimedBy: string },
): Promise<string | undefined> {
  const claimer = input.claimer;
  if (!claimer || !input.isAlive || fire.claimedBy === claimer.name) return undefined;
  if (await input.isAlive(fire.claimedBy)) return undefined;
  await claimer.hold();
  if (!(await takeOverFire(db, fire.key, fire.claimedBy, claimer.name))) return undefined;
  claimer.got(fire.key);
  input.logger.warn(
    `job ${fire.job}: the fire of ${fire.fireTime.toISOString()} was left running by ${fire.claimedBy}, which stopped; its rows are written again`,
  );
  return fire.key;
}

/** The fires of `jobs` since `since` left `running` (by this pass's peers, or by ones that died): the jobs' index. */
async function runningFiresOf(db: Executor, jobs: string[], since: Date): Promise<RunningFire[]> {
  const found = await rows<{
    fire_key: string;
    job_name: string;
    fire_time: Date | string;
    claimed_by: string;
  }>(
    db,
    sql`select f.fire_key, f.job_name, f.fire_time, f.claimed_by
        from json_array_elements_text(${JSON.stringify(jobs)}::json) as j(name)
        join schedule_fires f on f.job_name = j.name and f.fire_time > ${since.toISOString()}::timestamptz
        where f.status = 'running' and f.claimed_by is not null`,
  );
  return found.map((r) => ({
    key: r.fire_key,
    job: r.job_name,
    fireTime: new Date(r.fire_time),
    claimedBy: r.claimed_by,
  }));
}

/** The newest fire recorded for each of `jobs` in `schedule_fires`, whatever its status: one statement. */
async function lastRecordedFires(db: Executor, jobs: string[]): Promise<Map<string, Date>> {
  const found = await rows<{ name: string; last: Date | string | null }>(
    db,
    sql`select j.name, (select max(f.fire_time) from schedule_fires f where f.job_name = j.name) as last
        from json_array_elements_text(${JSON.stringify(jobs)}::json) as j(name)`,
  );
  const last = new Map<string, Date>();
  for (const row of found) if (row.last) last.set(row.name, new Date(row.last));
  return last;
}

/**
 * Of due fires a forecast would show bought now, those a pass would not buy: recorded skipped (missed), or come
 * while their job was suspended or paused (its history since the fire). The jobs' names.
 */
export async function dueFiresMissed(
  db: Executor,
  fires: ReadonlyArray<{ job: string; fireTime: Date }>,
): Promise<Set<string>> {
  const missed = new Set<string>();
  if (fires.length === 0) return missed;
  const keys = fires.map((fire) => jobFireRef(fire.job, fire.fireTime).key);
  const since = new Date(Math.min(...fires.map((fire) => fire.fireTime.getTime())) - 1);
  const [skipped, history] = await Promise.all([
    rows<{ job_name: string }>(
      db,
      sql`select job_name from schedule_fires
          where fire_key in (select json_array_elements_text(${JSON.stringify(keys)}::json)) and status = 'skipped'`,
    ),
    readJobEvents(db, { since }),
  ]);
  for (const row of skipped) missed.add(row.job_name);
  for (const fire of fires) {
    const events = history.filter((e) => e.job === fire.job && e.at.getTime() >= fire.fireTime.getTime());
    if (!activeAt(events, "active")(fire.fireTime)) missed.add(fire.job);
  }
  return missed;
}
