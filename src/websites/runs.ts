// The `website_runs` log: one row per reconcile pass, opened when the pass starts and closed with its counts,
// per-website errors and summary, so a pass that died midway still shows as `running`.
import { sql } from "drizzle-orm";
import { type Db, rows } from "../db/client.js";
import { type Notice, noticesInsert } from "../notify/outbox/write.js";

export type RunMode = "plan" | "apply" | "observe";
export type RunStatus = "ok" | "partial" | "failed" | "cancelled";

export interface WebsiteError {
  domain: string;
  id?: number;
  action: "create" | "update" | "delete" | "list" | "apply" | "guard";
  code: string;
  status?: number;
  message: string;
}

/** Done by the pass (created, updated, deleted) and found by its plan (the rest). */
export interface RunCounts {
  created: number;
  updated: number;
  deleted: number;
  unchanged: number;
  unmanaged: number;
  conflicts: number;
}

export interface RunOutcome extends RunCounts {
  status: RunStatus;
  errors: WebsiteError[];
  summary: Record<string, unknown>;
}

export async function startRun(db: Db, mode: RunMode): Promise<number> {
  const [row] = await rows<{ id: string | number }>(
    db,
    sql`insert into website_runs (mode, status) values (${mode}, 'running') returning id`,
  );
  return Number(row!.id);
}

/** Closes a pass; the notifications it found (drift, failed applies, refused deletes) are written in its statement. */
export async function finishRun(
  db: Db,
  id: number,
  outcome: RunOutcome,
  notices: readonly Notice[] = [],
): Promise<void> {
  const update = sql`update website_runs set
          finished_at = now(), status = ${outcome.status},
          created = ${outcome.created}, updated = ${outcome.updated}, deleted = ${outcome.deleted},
          unchanged = ${outcome.unchanged}, unmanaged = ${outcome.unmanaged}, conflicts = ${outcome.conflicts},
          errors = ${JSON.stringify(outcome.errors)}::jsonb, summary = ${JSON.stringify(outcome.summary)}::jsonb
        where id = ${id}`;
  if (notices.length === 0) await db.execute(update);
  else
    await db.execute(
      sql`with run as (${update} returning id), notice as (${noticesInsert(notices)}) select 1`,
    );
}
