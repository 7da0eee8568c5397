// Plans not applied by their `expires_at` end: each becomes `expired` (with its `plan_expired` notification) and the
// purchases a held plan kept from buying, or an apply cut short left queued, are cancelled with the reason
// `approval_expired`, in one transaction (expireDuePlans).
import type { Db } from "../db/client.js";
import { expireDuePlans } from "../purchases/plan-rows.js";

/** Expires what is due; returns the ids of the plans it ended. */
export async function expireOpenPlans(db: Db, now: Date, actor: string): Promise<string[]> {
  const ended = await expireDuePlans(db, now, actor);
  return ended.plans.map((plan) => plan.id);
}
