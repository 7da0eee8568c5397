// What /metrics reads from the database at scrape time: purchases by state, money committed today, fires by
// job and status, and the latest website passes. The counts come from the counters the ledger's triggers keep
// (migration 0006), so a scrape reads a few dozen rows however long the ledger's history.
import { sql } from "drizzle-orm";
import { type Executor, rows } from "../db/client.js";
import { PURCHASE_STATES } from "../db/schema.js";
import { budgetDay } from "../purchases/guards.js";
import type { PlanSummary } from "../websites/model.js";

export const NOTE_KINDS = [
  "price_mismatch",
  "verify_mismatch",
  "reference_clash",
  "reversed",
  "delivered_after_failure",
  "earlier_attempt_delivered",
] as const;

export interface LedgerStats {
  /** Every state, 0 when no purchase is in it. */
  byState: Record<string, number>;
  /** Decimal string. */
  spentToday: string;
  /** Purchases with a note an operator should see, by kind (NOTE_KINDS). */
  noted: Record<string, number>;
  fires: Array<{ job: string; status: string; count: number }>;
  /** Every job the ledger knows: its state and its last fire that was not skipped. */
  jobs: Array<{ job: string; state: string; lastFire: Date | null }>;
  lastWebsitePlan?: Partial<PlanSummary>;
  lastWebsiteSuccess?: Date;
  /** Since the oldest in_doubt purchase last changed, in seconds; 0 when none is in_doubt. */
  inDoubtOldestSeconds: number;
  /** Queued purchases due before today's budget day ends, and the most they may spend (their max_price). */
  queuedToday: { purchases: number; maxSpend: string; withoutMaxPrice: number };
}

export async function readLedgerStats(db: Executor, now: Date, timeZone: string): Promise<LedgerStats> {
  const byState: Record<string, number> = Object.fromEntries(PURCHASE_STATES.map((s) => [s, 0]));
  const counts = await rows<{ state: string; kind: string; n: number | string }>(
    db,
    sql`select state, note_kind as kind, sum(purchases) as n from purchase_state_counts group by state, note_kind`,
  );
  const noted: Array<{ kind: string; n: number }> = [];
  for (const row of counts) {
    byState[row.state] = (byState[row.state] ?? 0) + Number(row.n);
    if (row.kind !== "") noted.push({ kind: row.kind, n: Number(row.n) });
  }
  const [today] = await rows<{ committed: string }>(
    db,
    sql`select committed::text as committed from budget_days where day = ${budgetDay(now, timeZone)}::date`,
  );
  const fires = await rows<{ job_name: string; status: string; n: number | string }>(
    db,
    sql`select job_name, status, fires as n from schedule_fire_counts where fires <> 0`,
  );
  const jobs = await rows<{ name: string; state: string; last_fire: Date | string | null }>(
    db,
    sql`select j.name, j.state,
          (select f.fire_time from schedule_fires f where f.job_name = j.name and f.status <> 'skipped'
           order by f.fire_time desc limit 1) as last_fire
        from jobs j order by j.name limit 1000`,
  );
  const [website] = await rows<{
    planned: Partial<PlanSummary> | string | null;
    last_ok: Date | string | null;
  }>(
    db,
    sql`select
          (select summary -> 'planned' from website_runs
           where finished_at is not null and summary -> 'planned' is not null order by id desc limit 1) as planned,
          (select max(finished_at) from website_runs where status = 'ok') as last_ok`,
  );
  const day = budgetDay(now, timeZone);
  // The queue due by the end of the budget day (the purchases_due index), and the in_doubt rows (purchases_unsettled).
  const [pending] = await rows<{
    oldest: Date | string | null;
    n: number | string;
    ceiling: string;
    unpriced: number | string;
  }>(
    db,
    sql`select
          (select min(updated_at) from purchases where state = 'in_doubt') as oldest,
          count(*) as n,
          coalesce(sum(max_price), 0)::text as ceiling,
          count(*) filter (where max_price is null) as unpriced
        from purchases
        where state = 'queued' and not_before < ((${day}::date + 1)::timestamp at time zone ${timeZone})`,
  );
  const oldest = pending?.oldest ? new Date(pending.oldest).getTime() : undefined;
  return {
    inDoubtOldestSeconds: oldest === undefined ? 0 : Math.max(0, (now.getTime() - oldest) / 1000),
    queuedToday: {
      purchases: Number(pending?.n ?? 0),
      maxSpend: pending?.ceiling ?? "0",
      withoutMaxPrice: Number(pending?.unpriced ?? 0),
    },
    byState,
    spentToday: today?.committed ?? "0.00",
    noted: Object.fromEntries(
      NOTE_KINDS.map((kind) => [kind, noted.filter((n) => n.kind === kind).reduce((sum, n) => sum + n.n, 0)]),
    ),
    fires: fires.map((f) => ({ job: f.job_name, status: f.status, count: Number(f.n) })),
    jobs: jobs.map((j) => ({
      job: j.name,
      state: j.state,
      lastFire: j.last_fire ? new Date(j.last_fire) : null,
    })),
    lastWebsitePlan:
      typeof website?.planned === "string" ? JSON.parse(website.planned) : (website?.planned ?? undefined),
    lastWebsiteSuccess: website?.last_ok ? new Date(website.last_ok) : undefined,
  };
}
