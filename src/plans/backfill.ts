// `jobs backfill`: the fires of a window that the ledger holds no rows for — a fire missing for some recipients
// counts those recipients only — decided by the same projection as `plan` (each recipient's request key is looked
// up, so what any run, replica or earlier backfill bought is never bought again), and bought as a saved plan:
// through the approval rules like any spend, exactly its items, once. Catch-up never runs such fires (it runs only
// the latest missed fire within catch_up); a backfill is how a person asks for them, including fires from before the
// job first appeared in config.
import type { PurchaseJob } from "../config/index.js";
import { formatDuration } from "../duration.js";
import { UsageError } from "../errors.js";
import { type Money, sumMoney, ZERO } from "../money.js";
import { loadCatalogue } from "../purchases/catalogue-cache.js";
import type { PurchaseDeps } from "../purchases/executor.js";
import type { PurchaseProjection } from "../purchases/projection.js";
import { type ProjectionProgress, projectSources } from "../purchases/projection-read.js";
import { recipientsFilePath } from "../purchases/sources/jobs.js";
import { checkRecipientsFile } from "../purchases/sources/recipients-csv.js";
import { localTime } from "../time/cron.js";
import { firesBetween } from "../time/fires.js";
import { type Authorship, checkAuthorKey } from "./approvals.js";
import type { PurchasePlan } from "./document.js";
import { planText, reservePlanFile } from "./document.js";
import { purchasePlanFrom } from "./purchase-plan.js";
import { registerPlan, type SavedPlanRow } from "./registry.js";

/** The widest window a backfill takes unless told (`purchases[].backfill_max`). */
export const DEFAULT_BACKFILL_MAX_MS = 31 * 86_400_000;
/** More fires than this in one window are refused: backfill a narrower one. */
export const MAX_BACKFILL_FIRES = 5000;
/**
 * More purchases than this (fires × recipients) in one window are refused before any is decided: each is held whole
 * (some 1.6 KB) until the plan is saved, whose file holds some 270 bytes an item up to its 512 MiB; a window of two
 * million once ran for most of an hour and then could not be saved at all.
 */
export const MAX_BACKFILL_PURCHASES = 500_000;

export interface BackfillRequest {
  job: PurchaseJob;
  from: Date;
  to: Date;
  now: Date;
  /** Take a window wider than the job's backfill_max. */
  wide?: boolean;
}

export interface BackfillFire {
  fireTime: Date;
  recipients: number;
  /** Recipients the ledger holds no row for. */
  missing: number;
  toBuy: number;
  rejected: number;
  cost: Money;
}

export interface BackfillDay {
  /** The fires' calendar day in the job's time zone. */
  day: string;
  fires: number;
  purchases: number;
  cost: Money;
}

export interface Backfill {
  job: string;
  /** The job's time zone: its fires are read on this clock. */
  timezone: string;
  from: Date;
  to: Date;
  /** Fires of the window, all of them. */
  firesInWindow: number;
  /** The fires with missing recipients, oldest first. */
  missing: BackfillFire[];
  byDay: BackfillDay[];
  toBuy: number;
  rejected: number;
  total: Money;
  projection: PurchaseProjection;
}

/** The job's fires in [from, to] (never after now), oldest first; a usage error for a window it cannot take. */
export function backfillFires(job: PurchaseJob, globalTimeZone: string, request: BackfillRequest): Date[] {
  const { from, to, now } = request;
  if (from.getTime() >= to.getTime())
    throw new UsageError(`--from ${from.toISOString()} must be before --to ${to.toISOString()}`);
  if (from.getTime() > now.getTime())
    throw new UsageError(
      `--from ${from.toISOString()} is in the future: a backfill buys fires that have passed`,
    );
  const max = job.backfill_max ?? DEFAULT_BACKFILL_MAX_MS;
  if (!request.wide && to.getTime() - from.getTime() > max)
    throw new UsageError(
      `the window ${from.toISOString()} … ${to.toISOString()} is wider than backfill_max (${formatDuration(max)}) of job "${job.name}"; ` +
        "backfill a narrower window, or give --allow-wide",
      "BACKFILL_TOO_WIDE",
    );
  const end = new Date(Math.min(to.getTime(), now.getTime()));
  if (job.at) return job.at >= from && job.at <= end ? [job.at] : [];
  if (!job.schedule)
    throw new UsageError(
      `job "${job.name}" has no schedule or at: it has no fires to backfill (run it with --now)`,
    );
  const fires = firesBetween(
    job.schedule,
    job.timezone ?? globalTimeZone,
    new Date(from.getTime() - 1),
    end,
    MAX_BACKFILL_FIRES + 1,
  );
  if (fires.length > MAX_BACKFILL_FIRES)
    throw new UsageError(
      `job "${job.name}" fires more than ${MAX_BACKFILL_FIRES} times in the window; backfill a narrower one`,
      "BACKFILL_TOO_WIDE",
    );
  return fires;
}

/**
 * What a backfill of the window would buy: the projection of every fire in it, nothing written. Told after each
 * fire is decided and each batch of a recipients file's rows (`onProgress`).
 */
export async function projectBackfill(
  deps: Pick<PurchaseDeps, "database" | "reseller" | "config" | "logger">,
  request: BackfillRequest,
  onProgress?: (progress: ProjectionProgress) => void,
): Promise<Backfill> {
  const { job, now } = request;
  const fires = backfillFires(job, deps.config.timezone, request);
  await refuseHugeBackfill(job, fires.length);
  const catalogue = await loadCatalogue(deps.reseller, deps.logger);
  // Every fire is bought now: the guards and the budget day are today's, as for any run.
  const projection = await projectSources(deps.database.db, deps.config, catalogue, {
    now,
    to: now,
    fires: fires.map((fireTime) => ({ job, fireTime, time: now })),
    queued: false,
    intake: false,
    ...(onProgress ? { onProgress } : {}),
  });
  const missing: BackfillFire[] = [];
  for (const run of projection.runs) {
    if (run.kind !== "fire" || !run.fireTime) continue;
    const absent = run.candidates - run.existing - run.duplicates;
    if (absent <= 0) continue;
    missing.push({
      fireTime: run.fireTime,
      recipients: run.candidates,
      missing: absent,
      toBuy: run.toBuy,
      rejected: run.rejected + run.unknown,
      cost: run.cost,
    });
  }
  missing.sort((a, b) => a.fireTime.getTime() - b.fireTime.getTime());
  return {
    job: job.name,
    timezone: job.timezone ?? deps.config.timezone,
    from: request.from,
    to: request.to,
    firesInWindow: fires.length,
    missing,
    byDay: byDay(missing, job.timezone ?? deps.config.timezone),
    toBuy: missing.reduce((n, f) => n + f.toBuy, 0),
    rejected: missing.reduce((n, f) => n + f.rejected, 0),
    total: sumMoney(missing.map((f) => f.cost)),
    projection,
  };
}

/** A usage error when the window's fires times the job's recipients are more purchases than a backfill takes. */
async function refuseHugeBackfill(job: PurchaseJob, fires: number): Promise<void> {
  const file = recipientsFilePath(job, "/");
  // A file that cannot be read is the projection's to report, fire by fire, as for any run.
  const inFile = file ? await checkRecipientsFile(file).catch(() => 0) : 0;
  const recipients = job.recipients.length + inFile;
  const purchases = fires * recipients;
  if (purchases <= MAX_BACKFILL_PURCHASES) return;
  const count = (n: number) => n.toLocaleString("en-US");
  throw new UsageError(
    `job "${job.name}" would be ${count(purchases)} purchases in the window (${count(fires)} fires × ${count(recipients)} recipients), ` +
      `more than a backfill takes (${count(MAX_BACKFILL_PURCHASES)}); backfill a narrower window, one after another`,
    "BACKFILL_TOO_WIDE",
  );
}

function byDay(fires: readonly BackfillFire[], timeZone: string): BackfillDay[] {
  const days = new Map<string, BackfillDay>();
  for (const fire of fires) {
    const local = localTime(fire.fireTime.getTime(), timeZone);
    const day = `${local.year}-${String(local.month).padStart(2, "0")}-${String(local.day).padStart(2, "0")}`;
    const line = days.get(day) ?? { day, fires: 0, purchases: 0, cost: ZERO };
    line.fires++;
    line.purchases += fire.toBuy;
    line.cost = line.cost.plus(fire.cost);
    days.set(day, line);
  }
  return [...days.values()];
}

export interface SavedBackfill {
  plan: PurchasePlan;
  row: SavedPlanRow;
}

/**
 * The backfill as a saved plan, recorded in the ledger (and written to `file` when given): a plan needing no
 * approval starts approved and is applied at once by the caller; one that needs approval waits for it.
 */
export async function saveBackfill(
  deps: Pick<PurchaseDeps, "database" | "config">,
  backfill: Backfill,
  options: { now: Date; author: Authorship; configDigest: string | null; file?: string },
): Promise<SavedBackfill> {
  checkAuthorKey(deps.config.approvals.approvers, options.author);
  const plan = purchasePlanFrom(backfill.projection, {
    now: options.now,
    author: options.author,
    configDigest: options.configDigest,
    approvals: deps.config.approvals,
    request: { now: options.now, queued: false, configDir: "" },
  });
  // The request the plan records: the job; its fires are the items'.
  plan.request = { job: backfill.job, fire_time: null, queued: false };
  const text = planText(plan);
  const file = options.file ? reservePlanFile(options.file) : undefined;
  const row = await registerPlan(deps.database.db, plan, "saved", text).catch((error: unknown) => {
    file?.abandon();
    throw error;
  });
  file?.write(text);
  return { plan, row };
}
