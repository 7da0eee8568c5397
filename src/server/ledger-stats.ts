// What /metrics reads from the database at scrape time: purchases by state, money committed today, fires by
// job and status, and the latest website passes. A handful of aggregate statements over indexed columns.
import { sql } from "drizzle-orm";
import { type Executor, rows } from "../db/client.js";
import { PURCHASE_STATES } from "../db/schema.js";
import { budgetDay } from "../purchases/guards.js";
import type { PlanSummary } from "../websites/model.js";

export const NOTE_KINDS = ["price_mismatch", "verify_mismatch"] as const;

export interface LedgerStats {
  /** Every state, 0 when no purchase is in it. */
  byState: Record<string, number>;
  /** Decimal string. */
  spentToday: string;
  /** Purchases with a note an operator should see, by kind: price_mismatch, verify_mismatch. */
  noted: Record<string, number>;
  fires: Array<{ job: string; status: string; count: number }>;
  lastWebsitePlan?: Partial<PlanSummary>;
  lastWebsiteSuccess?: Date;
}

export async function readLedgerStats(db: Executor, now: Date, timeZone: string): Promise<LedgerStats> {
  const byState: Record<string, number> = Object.fromEntries(PURCHASE_STATES.map((s) => [s, 0]));
  const states = await rows<{ state: string; n: number | string }>(
    db,
    sql`select state, count(*) as n from purchases group by state`,
  );
  for (const row of states) byState[row.state] = Number(row.n);
  const noted = await rows<{ kind: string; n: number | string }>(
    db,
    sql`select split_part(note, ':', 1) as kind, count(*) as n from purchases where note is not null group by 1`,
  );
  const [today] = await rows<{ committed: string }>(
    db,
    sql`select committed::text as committed from budget_days where day = ${budgetDay(now, timeZone)}::date`,
  );
  const fires = await rows<{ job_name: string; status: string; n: number | string }>(
    db,
    sql`select job_name, status, count(*) as n from schedule_fires group by job_name, status`,
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
  return {
    byState,
    spentToday: today?.committed ?? "0.00",
    noted: Object.fromEntries(
      NOTE_KINDS.map((kind) => [kind, Number(noted.find((n) => n.kind === kind)?.n ?? 0)]),
    ),
    fires: fires.map((f) => ({ job: f.job_name, status: f.status, count: Number(f.n) })),
    lastWebsitePlan:
      typeof website?.planned === "string" ? JSON.parse(website.planned) : (website?.planned ?? undefined),
    lastWebsiteSuccess: website?.last_ok ? new Date(website.last_ok) : undefined,
  };
}
