// One pass of everything due (`topsync purchases run`, the demo): settle rows left by dead runs, move intake
// rows into the ledger, write the due fires of jobs, read the catalogue, execute, record the plan prices. The
// daemon runs the same steps on its timers and ends each run through `executeAndRecord` as this pass does. The
// dry run (`projectRun`) reads the same sources and decides with the same projection, writing nothing.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { sql } from "drizzle-orm";
import { systemClock } from "../clock.js";
import type { Config, PurchaseJob } from "../config/index.js";
import { type Database, type Db, rows } from "../db/client.js";
import { UsageError } from "../errors.js";
import { atWillNotFire, dueFire } from "../time/fires.js";
import { mark } from "../timings.js";
import { loadCatalogue } from "./catalogue-cache.js";
import {
  executePurchases,
  type Feed,
  type PurchaseDeps,
  type RunOptions,
  type RunSummary,
} from "./executor.js";
import { finishFire, releaseClaims } from "./fire-ledger.js";
import { gateRequired } from "./gate.js";
import { prepareBudgetDays } from "./guards.js";
import {
  CONFIG_ACTOR,
  type JobStatus,
  readJobStates,
  recordForcedRun,
  resumeJob,
  stoppedMessage,
  suspendJob,
} from "./job-states.js";
import { sweepDeadSubmitting } from "./ledger.js";
import { decideDueFires, type FireClaimer, type PassFire } from "./pass-fires.js";
import { recordPlanPrices } from "./prices.js";
import type { PurchaseProjection } from "./projection.js";
import { type ProjectionProgress, projectSources, readFirstSeen } from "./projection-read.js";
import type { Catalogue } from "./resolve.js";
import { sealLedgerRollups } from "./rollups.js";
import { HEARTBEAT_GRACE_MS, HEARTBEAT_MS } from "./run-liveness.js";
import { ingestIntake } from "./sources/intake.js";
import { type FireResult, fireJob } from "./sources/jobs.js";

export interface PrepareResult {
  swept: number;
  /** Rows in submitting of runs whose lock is free but whose heartbeat is recent: swept after the grace period. */
  waiting: number;
  intake: number;
  /** Of `intake`, the requests refused outright (their `error` in purchase_requests says why). */
  intakeRefused: number;
  fires: FireResult[];
}

/** A fire a pass writes; a scheduled one (not named by --now or --fire-time) carries the key it was claimed under. */
export type Fire = PassFire;

/**
 * The jobs table remembers when each job first appeared: no catch-up fire from before that. Returns when each of
 * `jobs` first appeared, in one statement: a job already known keeps its time (the no-op update returns the row
 * as committed, also when another process registered it a moment ago).
 */
export async function registerJobs(
  database: Database,
  jobs: PurchaseJob[],
  now: Date,
): Promise<Map<string, Date>> {
  return (await registerJobStates(database, jobs, now)).firstSeen;
}

export interface RegisteredJobs {
  firstSeen: Map<string, Date>;
  /** The jobs that are suspended or paused, with the note. */
  stopped: Map<string, { state: string; note: string | null }>;
}

/** `registerJobs`, and which of the jobs are suspended or paused (config's `suspended: true` applied first). */
export async function registerJobStates(
  database: Database,
  jobs: PurchaseJob[],
  now: Date,
): Promise<RegisteredJobs> {
  if (jobs.length === 0) return { firstSeen: new Map(), stopped: new Map() };
  // In one order whatever the config's, so two processes registering at once never wait on each other in a cycle.
  const names = JSON.stringify([...new Set(jobs.map((job) => job.name))].sort());
  const found = await rows<{
    name: string;
    first_seen: Date | string;
    state: string;
    note: string | null;
    state_changed_by: string | null;
  }>(
    database.db,
    sql`insert into jobs (name, first_seen)
        select name, ${now.toISOString()}::timestamptz from json_array_elements_text(${names}::json) as name
        on conflict (name) do update set name = excluded.name
        returning name, first_seen, state, note, state_changed_by`,
  );
  const stopped = new Map<string, { state: string; note: string | null }>();
  for (const row of found) if (row.state !== "active") stopped.set(row.name, row);
  for (const changed of await followConfigSuspension(database, jobs, found)) {
    if (changed.state === "active") stopped.delete(changed.name);
    else stopped.set(changed.name, changed);
  }
  return { firstSeen: new Map(found.map((r) => [r.name, new Date(r.first_seen)])), stopped };
}

/**
 * `suspended: true` in config suspends an active job (actor `config`); once the config no longer says so, a
 * suspension config made is lifted. A suspension or pause a person or a run made is theirs to end.
 */
async function followConfigSuspension(
  database: Database,
  jobs: readonly PurchaseJob[],
  states: ReadonlyArray<{ name: string; state: string; state_changed_by: string | null }>,
): Promise<JobStatus[]> {
  const byName = new Map(jobs.map((job) => [job.name, job]));
  const changed: JobStatus[] = [];
  for (const row of states) {
    const suspended = byName.get(row.name)?.suspended === true;
    if (suspended && row.state === "active")
      changed.push(
        (
          await suspendJob(database.db, row.name, {
            actor: CONFIG_ACTOR,
            reason: "suspended: true in config",
          })
        ).status,
      );
    else if (!suspended && row.state === "suspended" && row.state_changed_by === CONFIG_ACTOR)
      changed.push(
        (
          await resumeJob(database.db, row.name, {
            actor: CONFIG_ACTOR,
            reason: "suspended: true is no longer in config",
          })
        ).status,
      );
  }
  return changed;
}

export function findJob(config: Config, name: string): PurchaseJob {
  const job = config.purchases.find((j) => j.name === name);
  if (job) return job;
  const known = config.purchases.map((j) => j.name).join(", ") || "(none)";
  throw new UsageError(`no purchase job named "${name}" in the config; jobs: ${known}`, "UNKNOWN_JOB");
}

/** The fires a run should write now: the named job's given fire, or every job's due fire. */
export function firesToWrite(
  config: Config,
  now: Date,
  firstSeen: ReadonlyMap<string, Date>,
  explicit?: Fire,
): Fire[] {
  if (explicit) return [explicit];
  const fires: Fire[] = [];
  for (const job of config.purchases) {
    if (!job.enabled) continue;
    const fireTime = dueFire(job, config.timezone, now, firstSeen.get(job.name));
    if (fireTime) fires.push({ job, fireTime });
  }
  return fires;
}

export async function prepareRun(
  database: Database,
  config: Config,
  options: {
    now: Date;
    actor: string;
    configDir: string;
    fires: Fire[];
    intake: boolean;
    /** Called each time a batch of a fire's rows is in the ledger. */
    onRows?: () => void;
    /** Who claimed the fires that carry a `claimed` key (decideDueFires). */
    claimedBy?: string;
  },
): Promise<PrepareResult> {
  const { swept, waiting } = await sweepDeadSubmitting(database, options.actor);
  let intake = 0;
  let intakeRefused = 0;
  if (options.intake && config.intake.enabled) {
    for (;;) {
      const moved = await ingestIntake(database.db, config.intake.batch_size, options.actor);
      intake += moved.moved;
      intakeRefused += moved.refused;
      if (moved.moved < config.intake.batch_size) break;
    }
  }
  const fires: FireResult[] = [];
  for (const { job, fireTime, claimed } of options.fires) {
    const write = (db: Db) =>
      fireJob(db, job, fireTime, {
        configDir: options.configDir,
        defaultAttempts: config.reseller.retry.max_attempts,
        actor: options.actor,
        onRows: options.onRows,
      });
    // The approval gate weighs a fire whole: with rules configured, its rows appear together or not at all.
    // (A drizzle transaction: the fire's inserts take savepoints of it.)
    fires.push(
      gateRequired(config)
        ? await database.db.transaction((tx) => write(tx as unknown as Db))
        : await write(database.db),
    );
    // A claimed fire is closed `done` once its rows are in: later passes and a daemon neither write it again nor
    // count it missed. (One whose writing failed is given back by the pass: runPurchasePass.)
    if (claimed && options.claimedBy) await finishFire(database.db, claimed, options.claimedBy, "done");
  }
  return { swept, waiting, intake, intakeRefused, fires };
}

/** What one pass is asked to do: one job (at a given fire, or its due one) or everything due. */
export interface PassRequest {
  now: Date;
  job?: PurchaseJob;
  /** The fire to write for `job`; without it, the job's (or every job's) due fire. */
  fireTime?: Date;
  configDir: string;
  /** Run `job` even while it is suspended or paused: who asks, and why (an event in the job's history). */
  force?: { actor: string; reason: string };
}

/** Executes and records the catalogue's prices, so `topsync plan` sees every run's prices (CLI and daemon). */
export async function executeAndRecord(
  deps: PurchaseDeps,
  options: RunOptions & { catalogue: Catalogue },
): Promise<RunSummary> {
  const summary = await executePurchases(deps, options);
  await recordPlanPrices(deps.database.db, options.catalogue);
  return summary;
}

export interface PassResult extends PrepareResult {
  summary: RunSummary;
}

/** The whole `purchases run`: register jobs, sweep, intake, fires, catalogue, execute, record prices. */
export async function runPurchasePass(
  deps: PurchaseDeps,
  request: PassRequest,
  options: Pick<RunOptions, "onProgress" | "signal"> & {
    /** The catalogue being read already (`loadCatalogue`), by a caller that started it before the ledger was open. */
    catalogue?: Promise<Catalogue>;
  } = {},
): Promise<PassResult> {
  const { database, config, logger } = deps;
  const actor = deps.actor ?? `run:${process.pid}`;
  // The catalogue is read while the ledger is prepared: neither needs the other, and the first purchase waits
  // for both. (Handled here, so a failure while preparing leaves no unobserved rejection behind.)
  const { catalogue: early, ...runOptions } = options;
  const cataloguing = early ?? loadCatalogue(deps.reseller, logger);
  cataloguing.catch(() => undefined);
  // The connections the run needs once the first rows are in are opened meanwhile.
  database.warm();
  const registering = registerJobStates(database, config.purchases, request.now);
  prepareBudgetDays(config.timezone);
  const { firstSeen, stopped } = await registering;
  // A fire named (--now, --fire-time) is the operator's to write; the scheduled ones are decided as the daemon's
  // catch-up decides them and claimed before they are written, and the fires missed are recorded (missed_fire)
  // once, whichever pass sees them first.
  const claimer = new PassClaimer(database);
  const dueFires = (forceJob: string | undefined) =>
    decideDueFires(database.db, {
      config,
      jobs: request.job ? [request.job] : config.purchases,
      now: request.now,
      firstSeen,
      stopped,
      forceJob,
      actor,
      logger,
      claimer,
      isAlive: (name) => database.isRunAlive(name),
    });
  try {
    return await passWithClaims();
  } finally {
    await claimer.close();
  }

  async function passWithClaims(): Promise<PassResult> {
    // A crontab's `purchases run --job J` of a stopped job is refused, after its missed fires are recorded.
    if (request.job && !request.fireTime && !request.force && stopped.has(request.job.name))
      await dueFires(undefined);
    const forceJob = await forcedJob(database, request, stopped);
    const fires: Fire[] = request.fireTime ? passFires(config, request, firstSeen) : await dueFires(forceJob);
    if (!request.fireTime) {
      for (const job of request.job ? [request.job] : config.purchases) {
        const reason = atWillNotFire(job, request.now, firstSeen.get(job.name));
        if (reason) logger.warn(`job ${job.name} will not fire: ${reason}`);
      }
    }
    // The purchases start as soon as the fires' first rows are in the ledger; the rest are written meanwhile
    // (a fire is written in batches) and the run looks at the queue again as each batch is in, and ends only after
    // the last. A failure before any fire's rows are in stops the pass before it claims anything.
    const feed = new RowFeed();
    const preparing = prepareRun(database, config, {
      now: request.now,
      actor,
      configDir: request.configDir,
      fires,
      intake: !request.job,
      onRows: () => feed.rows(),
      claimedBy: claimer.name,
    });
    feed.follow(preparing);
    preparing.then(
      (prepared) => {
        if (prepared.swept > 0)
          logger.warn(
            `${prepared.swept} purchases were left in submitting by a stopped run and are now in_doubt`,
          );
        for (const fire of prepared.fires) {
          logger.info(
            `job ${fire.job} fire ${fire.fireTime.toISOString()}: ${fire.recipients} recipients, ${fire.inserted} new`,
          );
        }
      },
      () => undefined,
    );
    // The approval gate weighs a run whole: with rules configured, buying starts once every row of it is written.
    const whole = gateRequired(config);
    // The run gets ready to buy (its liveness lock, today's budget row, its reads) while the first rows are
    // written, and claims once they are in.
    const ready = feed.first.then(() => (feed.failed || whole ? preparing.then(() => undefined) : undefined));
    ready.catch(() => undefined); // the run's to report; observed here for a pass that fails before its run starts
    let summary: RunSummary;
    try {
      const catalogue = await cataloguing;
      summary = await executeAndRecord(
        { ...deps, actor },
        {
          ...runOptions,
          jobName: request.job?.name,
          forceJob,
          catalogue,
          ready,
          feed: whole ? undefined : feed,
        },
      );
    } finally {
      // Never leave the writing of a fire behind (its statements would meet a closed connection).
      await feed.done;
    }
    const prepared = await preparing;
    // Rows a stopped run left in submitting while its heartbeat was still fresh: settled now that it is stale.
    const late = prepared.waiting > 0 ? await sweepWhenStale(deps, actor) : 0;
    if (late > 0)
      logger.warn(`${late} purchases were left in submitting by a stopped run and are now in_doubt`);
    // Without a daemon, the report's rollups of past days are sealed here (one statement when nothing is due).
    await sealLedgerRollups(database.db);
    return { ...prepared, swept: prepared.swept + late, summary };
  }
}

/**
 * The claimer of a pass's fires: a name no other process has (a pid alone repeats across containers), and the
 * session lock under it, taken at the first claim and held until the pass ends; at the end, a fire it claimed but
 * did not write (the writing failed) is given back for a later pass.
 */
class PassClaimer implements FireClaimer {
  readonly name = `pass:${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
  private holding: Promise<() => Promise<void>> | undefined;
  private readonly keys: string[] = [];

  constructor(private readonly database: Database) {}

  async hold(): Promise<void> {
    this.holding ??= this.database.holdRunLock(this.name);
    await this.holding;
  }

  got(key: string): void {
    this.keys.push(key);
  }

  async close(): Promise<void> {
    if (!this.holding) return;
    const release = await this.holding.catch(() => undefined);
    await releaseClaims(this.database.db, this.keys, this.name).catch(() => {});
    await release?.().catch(() => {});
  }
}

/** The rows a pass is still writing while its purchases run (RunOptions.feed). */
class RowFeed implements Feed {
  private readonly listeners: Array<() => void> = [];
  private settle!: () => void;
  private started!: () => void;
  /** Settles when the writing has ended, well or not. */
  readonly done = new Promise<void>((resolve) => {
    this.settle = resolve;
  });
  /** Settles when the first rows are in, or the writing has ended. */
  readonly first = new Promise<void>((resolve) => {
    this.started = resolve;
  });
  failed = false;

  onRows(listener: () => void): void {
    this.listeners.push(listener);
  }

  rows(): void {
    mark("rows");
    this.started();
    for (const listener of this.listeners) listener();
  }

  follow(writing: Promise<unknown>): void {
    writing.then(
      () => this.end(),
      () => {
        this.failed = true;
        this.end();
      },
    );
  }

  private end(): void {
    this.started();
    this.settle();
  }
}

/**
 * The job a pass runs whatever its state: `request.job` when it is suspended or paused and the pass is forced
 * (recorded in the job's history). A stopped job without force is a usage error naming how to go on.
 */
async function forcedJob(
  database: Database,
  request: PassRequest,
  stopped: ReadonlyMap<string, { state: string; note: string | null }>,
): Promise<string | undefined> {
  const job = request.job?.name;
  const state = job === undefined ? undefined : stopped.get(job);
  if (job === undefined || !state) return undefined;
  if (!request.force)
    throw new UsageError(
      `${stoppedMessage(job, state)}: nothing was run; resume it with \`topsync jobs resume ${job}\`, or run it anyway with --force --reason TEXT`,
      "JOB_STOPPED",
    );
  await recordForcedRun(database.db, job, request.force);
  return job;
}

/** Waits out the heartbeat grace (at most once) and sweeps again. */
async function sweepWhenStale(deps: PurchaseDeps, actor: string): Promise<number> {
  const clock = deps.clock ?? systemClock;
  await clock.sleep(HEARTBEAT_GRACE_MS + HEARTBEAT_MS);
  return (await sweepDeadSubmitting(deps.database, actor)).swept;
}

/** The same pass decided without doing it: the projection over what the pass would take, nothing written. */
export async function projectRun(
  deps: Pick<PurchaseDeps, "database" | "reseller" | "config" | "logger">,
  request: PassRequest,
  keepItems = Number.POSITIVE_INFINITY,
  onProgress?: (progress: ProjectionProgress) => void,
): Promise<PurchaseProjection> {
  const { database, config } = deps;
  const seen = await readFirstSeen(database.db);
  // A job never seen before would be registered now: no catch-up fire from before it existed.
  const firstSeen = new Map(config.purchases.map((job) => [job.name, seen.get(job.name) ?? request.now]));
  const states = await readJobStates(database.db);
  // The fires the pass would write, decided as it decides them (nothing recorded); a named fire of a stopped job
  // is bought only when forced.
  const due = request.fireTime
    ? passFires(config, request, firstSeen).filter((fire) => {
        const state = states.get(fire.job.name);
        if (!state || state.state === "active" || request.force) return true;
        deps.logger.warn(
          `${stoppedMessage(fire.job.name, state)}: its fire ${fire.fireTime.toISOString()} would not be bought`,
        );
        return false;
      })
    : await decideDueFires(database.db, {
        config,
        jobs: request.job ? [request.job] : config.purchases,
        now: request.now,
        firstSeen,
        stopped: new Map([...states].filter(([, status]) => status.state !== "active")),
        forceJob: request.force ? request.job?.name : undefined,
        actor: "dry-run",
        logger: deps.logger,
        dryRun: true,
      });
  const catalogue = await loadCatalogue(deps.reseller, deps.logger);
  return projectSources(
    database.db,
    config,
    catalogue,
    {
      now: request.now,
      to: request.now,
      fires: due.map((fire) => ({ ...fire, time: request.now })),
      jobName: request.job?.name,
      queued: true,
      intake: !request.job,
      onProgress,
    },
    keepItems,
  );
}

function passFires(config: Config, request: PassRequest, firstSeen: ReadonlyMap<string, Date>): Fire[] {
  const { job, fireTime } = request;
  const fires = firesToWrite(config, request.now, firstSeen, job && fireTime ? { job, fireTime } : undefined);
  return job && !fireTime ? fires.filter((f) => f.job.name === job.name) : fires;
}
