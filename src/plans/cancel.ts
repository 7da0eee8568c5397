// A person cancels a purchase that has not been sent (queued, or held for an approval), keeping the saved plan that
// covers it true: its reservation against the daily budget shrinks by the purchase's planned price, and a plan the
// approval gate held whose every purchase is now cancelled ends as `cancelled` (nothing of it is left to approve or
// buy). The purchase and then its plan are locked, in the order the gate takes them, so two cancels of a plan's
// last purchases, or a cancel racing a release, see each other.
import { sql } from "drizzle-orm";
import { type Database, rows } from "../db/client.js";
import type { PurchaseState, SavedPlanStatus } from "../db/schema.js";
import { CANCELLABLE_STATES, cancelByPerson } from "../purchases/ledger.js";
import type { PlanOrigin } from "./registry.js";

export interface CancelResult {
  id: number;
  /** The state the purchase was in: `from_state` when it moved, else the state that kept it. */
  from: PurchaseState;
  moved: boolean;
  /** The saved plan covering it, and what the cancel did to it. */
  plan?: {
    id: string;
    status: SavedPlanStatus;
    /** Its purchases not cancelled: still held, queued, or bought. */
    left: number;
    reserved: string;
  };
}

const PLAN_TAG = /^plan:(.+)$/;

export async function cancelPurchase(
  database: Database,
  id: number,
  event: { actor: string; reason: string },
  now: Date,
): Promise<CancelResult> {
  return database.transaction(async (tx) => {
    const [row] = await rows<{ state: PurchaseState; approval: string | null; request_key: string }>(
      tx,
      sql`select state, approval, request_key from purchases where id = ${id} for update`,
    );
    if (!row) throw new Error(`purchase ${id} is gone`);
    if (!CANCELLABLE_STATES.includes(row.state)) return { id, from: row.state, moved: false };
    const planId = row.approval ? PLAN_TAG.exec(row.approval)?.[1] : undefined;
    const [plan] = planId
      ? await rows<{ origin: PlanOrigin; status: SavedPlanStatus }>(
          tx,
          sql`select origin, status from saved_plans where id = ${planId} for update`,
        )
      : [];
    const moved = await cancelByPerson(tx, id, {
      actor: event.actor,
      reason: planId ? `${event.reason} (it was in saved plan ${planId})` : event.reason,
    });
    if (!moved) return { id, from: row.state, moved: false };
    if (!planId || !plan) return { id, from: moved.from_state, moved: true };
    const [after] = await rows<{ status: SavedPlanStatus; remaining: number; reserved: string }>(
      tx,
      sql`with price as (
            -- The price the plan holds for it: set on the row when the gate held it, else read from the plan.
            select coalesce(p.max_price, (select (i->>'price')::numeric from saved_plans s,
                json_array_elements(s.document->'items') i
              where s.id = ${planId} and i->>'request_key' = p.request_key limit 1), 0) as amount
            from purchases p where p.id = ${id}
          ), counts as (
            select count(*) filter (where state <> 'cancelled')::int as remaining from purchases
            where approval = ${`plan:${planId}`}
          )
          update saved_plans s set
            reserved = case
              when s.origin = 'held' and (select remaining from counts) = 0 then 0
              when s.status in ('approved', 'applying') then greatest(s.reserved - (select amount from price), 0)
              else s.reserved end,
            status = case when s.origin = 'held' and (select remaining from counts) = 0
              and s.status in ('pending_approval', 'approved', 'applying') then 'cancelled' else s.status end,
            ended_at = case when s.origin = 'held' and (select remaining from counts) = 0
              and s.status in ('pending_approval', 'approved', 'applying') then ${now.toISOString()}::timestamptz
              else s.ended_at end,
            reason = case when s.origin = 'held' and (select remaining from counts) = 0
              and s.status in ('pending_approval', 'approved', 'applying')
              then ${`every purchase it held was cancelled by hand (the last, purchase ${id}: ${event.reason})`}
              else s.reason end
          where s.id = ${planId}
          returning s.status, (select remaining from counts) as remaining, s.reserved::text as reserved`,
    );
    return {
      id,
      from: moved.from_state,
      moved: true,
      ...(after
        ? { plan: { id: planId, status: after.status, left: after.remaining, reserved: after.reserved } }
        : {}),
    };
  });
}
