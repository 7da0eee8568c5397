// The reads a projection is decided from, SELECT-only: queued rows, intake requests not yet moved, the rows due
// fires would write (recipients files included), which of their keys the ledger has, and the guard state.
// `purchases run --dry-run`, `buy --dry-run` and `topsync plan` all gather their inputs here.
import { type SQL, sql } from "drizzle-orm";
import type { Config, PurchaseJob } from "../config/index.js";
import { type Executor, rows } from "../db/client.js";
import { ZERO } from "../money.js";
import { budgetDay } from "./guards.js";
import { idArray } from "./ledger.js";
import {
  guardLimits,
  Projector,
  type PurchaseProjection,
  type SourceRow,
  type SourceRun,
} from "./projection.js";
import { readReservedAhead } from "./reservations.js";
import type { Catalogue } from "./resolve.js";
import { type IntakeRow, intakePurchase, intakeRefusal } from "./sources/intake.js";
import { fireRecipient, fireRows, fireTemplate } from "./sources/jobs.js";
import { readGuardStart } from "./wallet.js";

/** A fire to project: the job, the fire time its rows carry, and when the run would take them. */
export interface ProjectedFire {
  job: PurchaseJob;
  fireTime: Date;
  time: Date;
}

export interface ProjectionQuery {
  now: Date;
  /** The end of the window: queued and intake rows due by then are taken (now, for a run). */
  to: Date;
  fires: ProjectedFire[];
  /** Only this job's queued rows (`purchases run --job`). */
  jobName?: string;
  /** Include the queue (a run buys it). */
  queued: boolean;
  /** Include intake requests not yet moved into the ledger. */
  intake: boolean;
  /** Runs given whole by the caller (`buy --dry-run`'s one row). */
  extra?: SourceRun[];
  /** Told after each run is decided and each batch of a fire's rows. */
  onProgress?: (progress: ProjectionProgress) => void;
}

/** How far a projection has got: runs decided of those in the window, and the rows decided so far. */
export interface ProjectionProgress {
  runs: number;
  total: number;
  rows: number;
}

/** The rows of a run, or the fire whose rows are streamed from its recipients when the run comes. */
type RunSource = Omit<SourceRun, "rows"> & ({ rows: SourceRow[] } | { fire: ProjectedFire });

/**
 * Reads the sources and decides them with one Projector as they stream: queued and intake rows as read, and
 * each fire's recipients (a file of a million rows included) in batches of 1,000, with their existing keys
 * looked up batch by batch. At most `keepItems` items are kept whole; every total counts them all.
 */
export async function projectSources(
  db: Executor,
  config: Config,
  catalogue: Catalogue | null,
  query: ProjectionQuery,
  keepItems = Number.POSITIVE_INFINITY,
): Promise<PurchaseProjection> {
  const { now, to } = query;
  const sources: RunSource[] = [
    ...(query.queued ? timed("queued", await readQueued(db, { now: to, jobName: query.jobName }), now) : []),
    ...(query.intake && config.intake.enabled ? timed("intake", await intakeRows(db, now, to), now) : []),
    ...query.fires.map(({ job, fireTime, time }) => ({
      kind: "fire" as const,
      time,
      job: job.name,
      fireTime,
      fire: { job, fireTime, time },
    })),
    ...(query.extra ?? []),
  ].sort(byTime);
  const days = [...new Set([now, ...sources.map((r) => r.time)].map((t) => budgetDay(t, config.timezone)))];
  const [ledger, reserved] = await Promise.all([readGuardStart(db, days), readReservedAhead(db, now)]);
  // Approved plans not yet applied hold their totals back from today's budget, as the claim counts them.
  const today = budgetDay(now, config.timezone);
  if (reserved.gt(0))
    ledger.committedByDay = new Map([
      ...ledger.committedByDay,
      [today, (ledger.committedByDay.get(today) ?? ZERO).plus(reserved)],
    ]);
  const projector = new Projector(
    { now, timeZone: config.timezone, limits: guardLimits(config.budget), catalogue, ledger },
    keepItems,
  );
  const attempts = config.reseller.retry.max_attempts;
  const inline = await inlineExisting(db, query.fires, attempts);
  const progress: ProjectionProgress = { runs: 0, total: sources.length, rows: 0 };
  const counted = (rows: number) => {
    progress.rows += rows;
    query.onProgress?.({ ...progress });
  };
  for (const source of sources) {
    if ("rows" in source) {
      const keys = source.kind === "queued" ? [] : source.rows.map((row) => row.request_key);
      projector
        .begin(source)
        .add(source.rows, await existingKeys(db, keys))
        .close();
      progress.runs += 1;
      counted(source.rows.length);
      continue;
    }
    await projectFire(db, projector, source, attempts, inline, counted);
    progress.runs += 1;
    counted(0);
  }
  return projector.finish();
}

/** Inline recipients of every fire together up to this many are looked up in one go (a long window's fires). */
const INLINE_LOOKUP_LIMIT = 100_000;

/**
 * Which of the fires' inline recipients the ledger has, read in slices of 1,000 for all fires at once (a 92-day
 * window of fifty jobs is thousands of fires of a few recipients each), or undefined when there are too many
 * to hold: then each fire looks its rows up as they stream.
 */
async function inlineExisting(
  db: Executor,
  fires: readonly ProjectedFire[],
  attempts: number,
): Promise<ReadonlySet<string> | undefined> {
  const count = fires.reduce((n, f) => n + f.job.recipients.length, 0);
  if (count === 0 || count > INLINE_LOOKUP_LIMIT) return undefined;
  const keys = fires.flatMap(({ job, fireTime }) => {
    const { keyPrefix } = fireTemplate(job, fireTime, attempts);
    return job.recipients.map((r) => `${keyPrefix}${fireRecipient(r).phone}`);
  });
  return existingKeys(db, keys);
}

/** One fire's rows as they stream; a recipients file that cannot be used makes the fire queue nothing. */
async function projectFire(
  db: Executor,
  projector: Projector,
  source: Omit<SourceRun, "rows"> & { fire: ProjectedFire },
  attempts: number,
  inline: ReadonlySet<string> | undefined,
  counted: (rows: number) => void,
): Promise<void> {
  const { fire, ...header } = source;
  const batches = fireRows(fire.job, fire.fireTime, attempts);
  let next: IteratorResult<SourceRow[]>;
  try {
    next = await batches.next();
  } catch (error) {
    const why = `the recipients file cannot be used, so this fire would queue nothing: ${message(error)}`;
    projector.begin({ ...header, error: why }).close();
    return;
  }
  const cursor = projector.begin(header);
  // The first batch is the inline recipients (fireRows yields them first), already looked up when they could be.
  for (let first = true; !next.done; next = await batches.next(), first = false) {
    const keys = next.value.map((row) => row.request_key);
    cursor.add(next.value, first && inline ? inline : await existingKeys(db, keys));
    counted(next.value.length);
  }
  cursor.close();
}

/** Which of these request keys the ledger already has, or had before a prune (read in slices of 1,000). */
export async function existingKeys(db: Executor, keys: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < keys.length; i += 1000) {
    const slice = keys.slice(i, i + 1000);
    const list = sql.join(
      slice.map((k) => sql`${k}`),
      sql`, `,
    );
    const hit = await rows<{ request_key: string }>(
      db,
      sql`select request_key from purchases where request_key in (${list})
          union all select request_key from pruned_purchases where request_key in (${list})`,
    );
    for (const h of hit) found.add(h.request_key);
  }
  return found;
}

type TimedRow = SourceRow & { not_before: Date };

export interface DueFilter {
  now: Date;
  jobName?: string;
  requestKey?: string;
  /** Only the rows of this saved plan (`apply`). */
  savedPlan?: string;
  /** Only rows the approval gate let through (approval rules are configured). */
  cleared?: boolean;
  /** Leave out the rows of suspended and paused jobs (what a claim may take). */
  activeJobsOnly?: boolean;
  /** With activeJobsOnly: this job's rows are taken whatever its state (`purchases run --job J --force`). */
  forceJob?: string;
}

/** A queued row as the claim and the projection read it, with its row version (xmin) for the claim. */
export interface QueuedRow extends SourceRow {
  id: number;
  version: string;
  network: string;
  plan_id: string | null;
  plan_selector: unknown;
  phone: string;
  ported: boolean;
  max_price: string | null;
  attempts: number;
  max_attempts: number;
  not_before: Date;
}

/**
 * Queued purchases due by `filter.now`, in claim order, read without locking: the one read of the queue, for
 * the claim (a window of `limit`, leaving out the ids a run holds) and for the projection (all of them).
 */
export async function readQueued(
  db: Executor,
  filter: DueFilter,
  options: { limit?: number; exclude?: readonly number[] } = {},
): Promise<QueuedRow[]> {
  const exclude = options.exclude ?? [];
  const found = await rows<QueuedRow & { id: string | number; not_before: Date | string }>(
    db,
    sql`select id, xmin::text as version, request_key, source, job_name, network, plan_id, plan_selector, phone,
          ported, max_price::text as max_price, attempts, max_attempts, not_before
        from purchases
        where state = 'queued' and not_before <= ${filter.now.toISOString()}::timestamptz
          ${filter.jobName ? sql`and job_name = ${filter.jobName}` : sql``}
          ${filter.requestKey ? sql`and request_key = ${filter.requestKey}` : sql``}
          ${filter.savedPlan ? sql`and approval = ${`plan:${filter.savedPlan}`}` : sql``}
          ${filter.cleared ? sql`and approval is not null` : sql``}
          and ${unendedPlan(sql`approval`, filter.now)}
          ${filter.activeJobsOnly ? stoppedJobsFilter(sql`job_name`, filter.forceJob) : sql``}
          ${exclude.length > 0 ? sql`and id <> all(${idArray(exclude)}::bigint[])` : sql``}
        order by not_before, id ${options.limit === undefined ? sql`` : sql`limit ${options.limit}`}`,
  );
  return found.map((row) => ({ ...row, id: Number(row.id), not_before: new Date(row.not_before) }));
}

/**
 * The row (its `approval`, a column) is not of a saved plan that ended — past its `expires_at`, or marked expired,
 * rejected or cancelled: an ended plan buys nothing more, whether or not anything has cancelled its rows yet
 * (approval rules configured or not, a run started before it expired). The read of due rows and the claim check it
 * alike — the claim again in the statement that takes the row, so a plan that expired between the read of its rows
 * and their claim buys none of them, and a row the claim refuses is not read again.
 */
export function unendedPlan(approval: SQL, now: Date): SQL {
  return sql`(${approval} is null or ${approval} not like 'plan:%' or not exists (
    select 1 from saved_plans s where s.id = substr(${approval}, 6)
      and (s.expires_at <= ${now.toISOString()}::timestamptz or s.status in ('expired', 'rejected', 'cancelled'))))`;
}

/** `and` the row's job (`jobName`, a column) is neither suspended nor paused, unless it is `force`. */
export function stoppedJobsFilter(jobName: SQL, force?: string): SQL {
  return sql`and (${jobName} is null or ${jobName} not in (
    select name from jobs where state <> 'active' ${force ? sql`and name <> ${force}` : sql``}))`;
}

/** Intake requests not yet moved into the ledger, as the rows the move would write. */
async function intakeRows(db: Executor, now: Date, to: Date): Promise<TimedRow[]> {
  const found = await rows<IntakeRow>(
    db,
    sql`select request_key, network, plan_id, plan_size, plan_type, plan_name_contains, phone, ported,
          max_price::text as max_price, requested_by, not_before
        from purchase_requests
        where processed_at is null and coalesce(not_before, ${now.toISOString()}::timestamptz) <= ${to.toISOString()}
        order by id`,
  );
  // A refused request never enters the ledger (its error is written when the run moves it).
  return found.filter((r) => intakeRefusal(r) === null).map((r) => intakePurchase(r, now) as TimedRow);
}

/** Rows grouped into the runs that would take them: everything due now in one, later ones by minute. */
function timed(kind: "queued" | "intake", found: TimedRow[], now: Date): SourceRun[] {
  const byMinute = new Map<number, SourceRow[]>();
  for (const row of found) {
    const due = row.not_before.getTime();
    const at = due <= now.getTime() ? now.getTime() : Math.floor(due / 60_000) * 60_000;
    const list = byMinute.get(at);
    if (list) list.push(row);
    else byMinute.set(at, [row]);
  }
  return [...byMinute].map(([at, list]) => ({
    kind,
    time: new Date(at),
    job: null,
    fireTime: null,
    rows: list,
  }));
}

const KIND_ORDER = { queued: 0, intake: 1, fire: 2, buy: 3 } as const;

function byTime(a: Omit<SourceRun, "rows">, b: Omit<SourceRun, "rows">): number {
  return a.time.getTime() - b.time.getTime() || KIND_ORDER[a.kind] - KIND_ORDER[b.kind];
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** When each job was first seen (the jobs table): no catch-up fire from before that. */
export async function readFirstSeen(db: Executor): Promise<Map<string, Date>> {
  const found = await rows<{ name: string; first_seen: Date | string }>(
    db,
    sql`select name, first_seen from jobs`,
  );
  return new Map(found.map((r) => [r.name, new Date(r.first_seen)]));
}
