// Reads what a plan is decided from (ledger, intake, fires, live catalogue, remote websites) with SELECTs and
// GETs only; a service that cannot be read becomes an unknown part of the plan, never a silent gap.
import { sql } from "drizzle-orm";
import type { WebsiteListing } from "../analytics/client.js";
import type { Config } from "../config/index.js";
import { type Db, rows } from "../db/client.js";
import type { Logger } from "../log/logger.js";
import { type Money, parseMoney } from "../money.js";
import { loadCatalogue } from "../purchases/catalogue-cache.js";
import { existingKeys, fireRows } from "../purchases/dry-run.js";
import { budgetDay } from "../purchases/guards.js";
import type { NewPurchase } from "../purchases/ledger.js";
import type { Catalogue } from "../purchases/resolve.js";
import { type IntakeRow, intakePurchase } from "../purchases/sources/intake.js";
import { readGuardState } from "../purchases/submit.js";
import type { ResellerClient } from "../reseller/client.js";
import { loadOwnership } from "../websites/ownership.js";
import { jobFires } from "./plan-fires.js";
import type { CandidateRun, JobFires, PlanInputs, UnknownPart } from "./plan-model.js";
import { readPlanPrices } from "./plan-prices.js";

export interface PlanSources {
  db: Db;
  reseller: ResellerClient;
  analytics: { listWebsites(): Promise<WebsiteListing> };
  config: Config;
  logger: Logger;
}

export async function gatherPlanInputs(
  sources: PlanSources,
  window: { now: Date; to: Date },
): Promise<PlanInputs> {
  const { db, config } = sources;
  const { now, to } = window;
  const [catalogue, listing] = await Promise.all([readCatalogue(sources), readWebsites(sources)]);
  const fires = jobFires(config, now, to, await firstSeen(db));
  const unknown = [catalogue.unknown, listing.unknown, ...fires.unknown].filter((u) => u !== undefined);
  const runs = [
    ...timed("queued", await queuedRows(db, to), now),
    ...(config.intake.enabled ? timed("intake", await intakeRows(db, now, to), now) : []),
    ...(await fireRuns(fires.jobs, now, config.reseller.retry.max_attempts)),
  ].sort(byTime);
  const keys = runs.filter((r) => r.kind !== "queued").flatMap((r) => r.rows.map((row) => row.request_key));
  const days = [...new Set([now, ...runs.map((r) => r.time)].map((t) => budgetDay(t, config.timezone)))];
  return {
    now,
    to,
    config,
    jobs: fires.jobs,
    runs,
    existing: await existingKeys(db, keys),
    catalogue: catalogue.value,
    ledger: await ledgerState(db, days),
    recordedPrices: await readPlanPrices(db),
    websites: listing.value ? { remote: listing.value.websites, ownership: await loadOwnership(db) } : null,
    unknown,
  };
}

/** A value read from a service, or the part of the plan that stays unknown without it. */
interface Read<T> {
  value: T | null;
  unknown?: UnknownPart;
}

async function readCatalogue(sources: PlanSources): Promise<Read<Catalogue>> {
  try {
    return { value: await loadCatalogue(sources.reseller, sources.logger) };
  } catch (error) {
    const reason = `the reseller's networks could not be read: ${message(error)}`;
    return { value: null, unknown: { part: "purchases", reason } };
  }
}

async function readWebsites(sources: PlanSources): Promise<Read<WebsiteListing>> {
  try {
    return { value: await sources.analytics.listWebsites() };
  } catch (error) {
    const reason = `the analytics service's websites could not be listed: ${message(error)}`;
    return { value: null, unknown: { part: "websites", reason } };
  }
}

async function firstSeen(db: Db): Promise<Map<string, Date>> {
  const found = await rows<{ name: string; first_seen: Date | string }>(
    db,
    sql`select name, first_seen from jobs`,
  );
  return new Map(found.map((r) => [r.name, new Date(r.first_seen)]));
}

type TimedRow = NewPurchase & { not_before: Date };

/** Queued ledger rows due by the window's end. */
async function queuedRows(db: Db, to: Date): Promise<TimedRow[]> {
  const found = await rows<NewPurchase & { not_before: Date | string }>(
    db,
    sql`select request_key, source, job_name, network, plan_id, plan_selector, phone, ported,
          max_price::text as max_price, not_before
        from purchases where state = 'queued' and not_before <= ${to.toISOString()} order by not_before, id`,
  );
  return found.map((r) => ({ ...r, not_before: new Date(r.not_before) }));
}

/** Intake requests not yet moved into the ledger, as the rows the move would write (src/purchases/sources/intake.ts). */
async function intakeRows(db: Db, now: Date, to: Date): Promise<TimedRow[]> {
  const found = await rows<IntakeRow>(
    db,
    sql`select request_key, network, plan_id, plan_size, plan_type, plan_name_contains, phone, ported,
          max_price::text as max_price, requested_by, not_before
        from purchase_requests
        where processed_at is null and coalesce(not_before, ${now.toISOString()}::timestamptz) <= ${to.toISOString()}
        order by id`,
  );
  return found.map((r) => intakePurchase(r, now) as TimedRow);
}

/** Rows grouped into the runs that would take them: everything due now in one, later ones by minute. */
function timed(kind: "queued" | "intake", found: TimedRow[], now: Date): CandidateRun[] {
  const byMinute = new Map<number, NewPurchase[]>();
  for (const row of found) {
    const due = row.not_before.getTime();
    const at = due <= now.getTime() ? now.getTime() : Math.floor(due / 60_000) * 60_000;
    const rows = byMinute.get(at);
    if (rows) rows.push(row);
    else byMinute.set(at, [row]);
  }
  return [...byMinute].map(([at, rows]) => ({ kind, time: new Date(at), job: null, fireTime: null, rows }));
}

async function fireRuns(jobs: JobFires[], now: Date, attempts: number): Promise<CandidateRun[]> {
  const runs: CandidateRun[] = [];
  for (const { job, dueNow, fires } of jobs) {
    const all = dueNow
      ? [{ fireTime: dueNow, time: now }, ...fires.map((f) => ({ fireTime: f, time: f }))]
      : fires.map((f) => ({ fireTime: f, time: f }));
    for (const { fireTime, time } of all) {
      const run: CandidateRun = { kind: "fire", time, job: job.name, fireTime, rows: [] };
      try {
        for await (const part of fireRows(job, fireTime, attempts)) run.rows.push(...part);
      } catch (error) {
        run.rows = [];
        run.error = `the recipients file cannot be used, so this fire would queue nothing: ${message(error)}`;
      }
      runs.push(run);
    }
  }
  return runs;
}

const KIND_ORDER = { queued: 0, intake: 1, fire: 2 } as const;

function byTime(a: CandidateRun, b: CandidateRun): number {
  return a.time.getTime() - b.time.getTime() || KIND_ORDER[a.kind] - KIND_ORDER[b.kind];
}

async function ledgerState(db: Db, days: string[]): Promise<PlanInputs["ledger"]> {
  const committedByDay = new Map<string, Money>();
  let inFlight = parseMoney("0");
  for (const day of days) {
    const state = await readGuardState(db, day);
    committedByDay.set(day, state.dailyCommitted);
    inFlight = state.inFlight;
  }
  const [wallet] = await rows<{ value: { balance?: string | null; as_of?: string } | string }>(
    db,
    sql`select value from kv where key = 'wallet'`,
  );
  const value = typeof wallet?.value === "string" ? JSON.parse(wallet.value) : wallet?.value;
  return {
    inFlight,
    committedByDay,
    wallet: value?.balance
      ? { balance: parseMoney(value.balance), asOf: value.as_of ? new Date(value.as_of) : null }
      : null,
  };
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
