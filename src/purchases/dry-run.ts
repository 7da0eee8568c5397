// What a purchase run would do, without doing it: the same resolution and guards as the executor, over
// the rows a run would create and the rows already queued, with only reads (plans, the ledger).
import { sql } from "drizzle-orm";
import type { Config, PurchaseJob } from "../config/index.js";
import { type Db, rows } from "../db/client.js";
import type { Logger } from "../log/logger.js";
import { type Money, parseMoney, ZERO } from "../money.js";
import type { ResellerClient } from "../reseller/client.js";
import { loadCatalogue } from "./catalogue-cache.js";
import { applyGuards, budgetDay } from "./guards.js";
import type { NewPurchase } from "./ledger.js";
import type { Catalogue, PlanSelector } from "./resolve.js";
import { resolvePurchase } from "./resolve.js";
import { jobPurchase, recipientsFilePath } from "./sources/jobs.js";
import { checkRecipientsFile, recipientBatches } from "./sources/recipients-csv.js";
import { readGuardState } from "./submit.js";

export interface DryRunItem {
  request_key: string;
  source: string;
  job: string | null;
  phone: string;
  network: string;
  plan: string | null;
  amount: string | null;
  outcome: "buy" | "reject" | "exists";
  reason?: string;
}

export interface DryRunReport {
  items: DryRunItem[];
  toBuy: number;
  rejected: number;
  existing: number;
  cost: Money;
  byNetwork: Record<string, { count: number; cost: string }>;
}

export interface DryRunInput {
  fires: Array<{ job: PurchaseJob; fireTime: Date }>;
  includeQueued: boolean;
  jobName?: string;
  now: Date;
}

export async function dryRunPurchases(
  deps: { db: Db; reseller: ResellerClient; config: Config; logger: Logger; catalogue?: Catalogue },
  input: DryRunInput,
): Promise<DryRunReport> {
  const catalogue = deps.catalogue ?? (await loadCatalogue(deps.reseller, deps.logger));
  const candidates: NewPurchase[] = [];
  for (const { job, fireTime } of input.fires) {
    for await (const batch of fireRows(job, fireTime, deps.config.reseller.retry.max_attempts))
      candidates.push(...batch);
  }
  const existing = await existingKeys(
    deps.db,
    candidates.map((c) => c.request_key),
  );
  const items: DryRunItem[] = [];
  const seen = new Set<string>();
  const fresh = candidates.filter((c) => {
    const duplicate = seen.has(c.request_key);
    seen.add(c.request_key);
    if (!duplicate && !existing.has(c.request_key)) return true;
    const reason = duplicate
      ? "duplicate: listed more than once in this fire (bought once)"
      : "already in the ledger";
    items.push({ ...describeRow(c), outcome: "exists", reason });
    return false;
  });
  if (input.includeQueued) fresh.push(...(await queuedRows(deps.db, input.now, input.jobName)));
  const resolutions = fresh.map((c) => ({ c, r: resolvePurchase(toRequest(c), catalogue) }));
  const ok = resolutions.filter((x) => x.r.ok);
  const state = await readGuardState(deps.db, budgetDay(input.now, deps.config.timezone));
  const decisions = applyGuards(
    ok.map((x) => (x.r.ok ? x.r.amount : ZERO)),
    {
      dailyLimit: deps.config.budget.daily_limit,
      perRunLimit: deps.config.budget.per_run_limit,
      minWalletBalance: deps.config.budget.min_wallet_balance,
    },
    { ...state, runCommitted: ZERO },
  );
  const report: DryRunReport = {
    items,
    toBuy: 0,
    rejected: 0,
    existing: items.length,
    cost: ZERO,
    byNetwork: {},
  };
  let okIndex = 0;
  for (const { c, r } of resolutions) {
    if (!r.ok) {
      items.push({ ...describeRow(c), outcome: "reject", reason: `${r.code}: ${r.reason}` });
      report.rejected++;
      continue;
    }
    const decision = decisions[okIndex++]!;
    const item = {
      ...describeRow(c),
      network: r.network.name,
      plan: `${r.plan.id} ${r.plan.name}`,
      amount: r.amount.toFixed(2),
      phone: r.phone,
    };
    if (!decision.ok) {
      items.push({ ...item, outcome: "reject", reason: `${decision.code}: ${decision.reason}` });
      report.rejected++;
      continue;
    }
    items.push({ ...item, outcome: "buy" });
    report.toBuy++;
    report.cost = report.cost.plus(r.amount);
    report.byNetwork[r.network.name] ??= { count: 0, cost: "0.00" };
    const network = report.byNetwork[r.network.name]!;
    network.count++;
    network.cost = parseMoney(network.cost).plus(r.amount).toFixed(2);
  }
  return report;
}

/** The ledger rows one fire would write, in batches: the inline recipients, then the recipients file. */
export async function* fireRows(
  job: PurchaseJob,
  fireTime: Date,
  attempts: number,
): AsyncGenerator<NewPurchase[]> {
  yield job.recipients.map((r) => jobPurchase(job, fireTime, r, attempts));
  const file = recipientsFilePath(job, "/");
  if (!file) return;
  await checkRecipientsFile(file);
  for await (const batch of recipientBatches(file, 1000))
    yield batch.map((r) => jobPurchase(job, fireTime, r, attempts));
}

/** Which of these request keys the ledger already has (read in slices of 1,000). */
export async function existingKeys(db: Db, keys: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < keys.length; i += 1000) {
    const slice = keys.slice(i, i + 1000);
    if (slice.length === 0) break;
    const hit = await rows<{ request_key: string }>(
      db,
      sql`select request_key from purchases where request_key in (${sql.join(
        slice.map((k) => sql`${k}`),
        sql`, `,
      )})`,
    );
    for (const h of hit) found.add(h.request_key);
  }
  return found;
}

async function queuedRows(db: Db, now: Date, jobName?: string): Promise<NewPurchase[]> {
  const found = await rows<NewPurchase & { max_price: string | null }>(
    db,
    sql`select request_key, source, job_name, network, plan_id, plan_selector, phone, ported, max_price::text as max_price
        from purchases where state = 'queued' and not_before <= ${now.toISOString()}
        ${jobName ? sql`and job_name = ${jobName}` : sql``} order by not_before, id`,
  );
  return found;
}

/** A ledger row (or a row that would be written) as the request resolution decides on. */
export function toRequest(c: NewPurchase) {
  return {
    network: c.network,
    plan_id: c.plan_id,
    plan_selector: (c.plan_selector ?? null) as PlanSelector | null,
    phone: c.phone,
    ported: c.ported ?? false,
    max_price: c.max_price ? parseMoney(c.max_price) : null,
  };
}

/** A row as an item of a dry run, before its outcome is decided. */
export function describeRow(c: NewPurchase): Omit<DryRunItem, "outcome"> {
  return {
    request_key: c.request_key,
    source: c.source,
    job: c.job_name ?? null,
    phone: c.phone,
    network: c.network,
    plan: c.plan_id ?? null,
    amount: null,
  };
}
