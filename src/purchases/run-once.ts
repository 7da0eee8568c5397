// One pass of everything due (`topsync purchases run`): settle rows left by dead runs, move intake rows
// into the ledger, write the due fires of jobs, then execute. The daemon runs the same steps on its timers.
import { sql } from "drizzle-orm";
import type { Config, PurchaseJob } from "../config/index.js";
import type { Database } from "../db/client.js";
import { rows } from "../db/client.js";
import { UsageError } from "../errors.js";
import { dueFire } from "../schedule/fires.js";
import { sweepDeadSubmitting } from "./ledger.js";
import { ingestIntake } from "./sources/intake.js";
import { type FireResult, fireJob } from "./sources/jobs.js";

export interface PrepareResult {
  swept: number;
  intake: number;
  fires: FireResult[];
}

/** The jobs table remembers when each job first appeared: no catch-up fire from before that. */
export async function registerJobs(
  database: Database,
  jobs: PurchaseJob[],
  now: Date,
): Promise<Map<string, Date>> {
  if (jobs.length === 0) return new Map();
  const values = jobs.map((job) => sql`(${job.name}, ${now.toISOString()}::timestamptz)`);
  await database.db.execute(
    sql`insert into jobs (name, first_seen) values ${sql.join(values, sql`, `)} on conflict (name) do nothing`,
  );
  const found = await rows<{ name: string; first_seen: Date | string }>(
    database.db,
    sql`select name, first_seen from jobs`,
  );
  return new Map(found.map((r) => [r.name, new Date(r.first_seen)]));
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
  firstSeen: Map<string, Date>,
  explicit?: { job: PurchaseJob; fireTime: Date },
): Array<{ job: PurchaseJob; fireTime: Date }> {
  if (explicit) return [explicit];
  const fires: Array<{ job: PurchaseJob; fireTime: Date }> = [];
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
    fires: Array<{ job: PurchaseJob; fireTime: Date }>;
    intake: boolean;
  },
): Promise<PrepareResult> {
  const swept = await sweepDeadSubmitting(database, options.actor);
  let intake = 0;
  if (options.intake && config.intake.enabled) {
    for (;;) {
      const moved = await ingestIntake(database.db, config.intake.batch_size, options.actor);
      intake += moved.moved;
      if (moved.moved < config.intake.batch_size) break;
    }
  }
  const fires: FireResult[] = [];
  for (const { job, fireTime } of options.fires) {
    fires.push(
      await fireJob(database.db, job, fireTime, {
        configDir: options.configDir,
        defaultAttempts: config.reseller.retry.max_attempts,
        actor: options.actor,
      }),
    );
  }
  return { swept, intake, fires };
}
