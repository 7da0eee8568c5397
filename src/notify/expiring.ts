// `approval_expiring`: a saved plan still open (awaiting approval, or approved and not applied) within the last
// quarter of its time to live, and at most an hour before it expires. Told once per plan; found by the
// notifier's look, since nothing changes in the ledger at that moment but the clock.
import { sql } from "drizzle-orm";
import { type Executor, rows } from "../db/client.js";
import { planNotices } from "./outbox/write.js";

const MAX_WARNING_MS = 3_600_000;

export async function writeExpiringPlanNotices(db: Executor, planTtlMs: number): Promise<number> {
  const windowMs = Math.min(MAX_WARNING_MS, Math.floor(planTtlMs / 4));
  const written = await rows<{ n: number }>(
    db,
    sql`with notice as (${planNotices(
      "approval_expiring",
      sql`select id, kind, origin, author, total, items, approvals_required, expires_at from saved_plans
          where status in ('pending_approval', 'approved') and expires_at > now()
            and expires_at <= now() + ${windowMs} * interval '1 millisecond'`,
    )} returning 1) select count(*)::int as n from notice`,
  );
  return Number(written[0]?.n ?? 0);
}
