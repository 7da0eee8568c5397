// The website passes' history for a report (SELECTs only): totals by status and the passes that did something.
import { sql } from "drizzle-orm";
import { type Executor, rows } from "../db/client.js";
import type { RunCounts } from "./runs.js";

/** Website passes listed one by one (the newest that changed, planned or failed something). */
export const PASSES_SHOWN = 50;

/** The website passes' history for a report, as read. */
export interface PassRows {
  anyRuns: boolean;
  passTotals: Array<{ status: string; n: number; created: number; updated: number; deleted: number }>;
  passes: Array<
    RunCounts & {
      id: number | string;
      started_at: Date | string;
      finished_at: Date | string | null;
      mode: string;
      status: string;
      errors: unknown;
      summary: unknown;
    }
  >;
}

export async function readPassHistory(db: Executor, since: Date): Promise<PassRows> {
  const from = since.toISOString();
  const [anything] = await rows<{ runs: boolean }>(
    db,
    sql`select exists(select 1 from website_runs) as runs`,
  );
  return {
    anyRuns: anything?.runs === true,
    passTotals: await rows(
      db,
      sql`select status, count(*)::int as n, coalesce(sum(created), 0)::int as created,
            coalesce(sum(updated), 0)::int as updated, coalesce(sum(deleted), 0)::int as deleted
          from website_runs where started_at >= ${from}::timestamptz group by status order by status`,
    ),
    passes: await rows(
      db,
      sql`select id, started_at, finished_at, mode, status, created, updated, deleted, unchanged, unmanaged, conflicts,
            errors, summary
          from website_runs
          where started_at >= ${from}::timestamptz
            and (created + updated + deleted > 0 or status <> 'ok'
                 or exists (select 1 from jsonb_array_elements(coalesce(summary -> 'changes', '[]'::jsonb)) c
                            where c ->> 'action' <> 'unmanaged'))
          order by started_at desc, id desc limit ${PASSES_SHOWN}`,
    ),
  };
}
