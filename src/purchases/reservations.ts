// What approved saved plans not yet applied hold back from the daily budget: every such plan for an ordinary run or
// dry run; for a plan's own apply, only the plans approved before it (first approved, first served), never its own.
// The claim counts it under its budget lock; dry runs and the stale check read it the same way.
import { type SQL, sql } from "drizzle-orm";
import { type Executor, rows } from "../db/client.js";
import { type Money, parseMoney } from "../money.js";

/** The reservation as a scalar subquery, for a statement (the claim's) that decides under lock. */
export function reservedAheadSql(now: Date, own?: string): SQL {
  return sql`(select coalesce(sum(s.reserved), 0) from saved_plans s
    where s.status in ('approved', 'applying') and s.reserved > 0 and s.expires_at > ${now.toISOString()}::timestamptz
    ${own ? sql`and s.id <> ${own} and (s.approved_at, s.id) < (select o.approved_at, o.id from saved_plans o where o.id = ${own})` : sql``})`;
}

export async function readReservedAhead(db: Executor, now: Date, own?: string): Promise<Money> {
  const [row] = await rows<{ reserved: string }>(
    db,
    sql`select ${reservedAheadSql(now, own)}::text as reserved`,
  );
  return parseMoney(row?.reserved ?? "0");
}
