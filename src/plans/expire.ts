// Plans not applied by their `expires_at` end: their status becomes `expired`, their reservation ends, and the rows a
// held plan kept from buying are cancelled with the reason `approval_expired`.
import type { Executor } from "../db/client.js";
import { cancelHeld } from "../purchases/plan-rows.js";
import { expirePlans } from "./registry.js";

export const APPROVAL_EXPIRED = "approval_expired";

/** Expires what is due; returns the ids of the plans it ended. */
export async function expireOpenPlans(db: Executor, now: Date, actor: string): Promise<string[]> {
  const ended = await expirePlans(db, now);
  for (const plan of ended)
    if (plan.origin === "held")
      await cancelHeld(db, plan.id, {
        actor,
        reason: `${APPROVAL_EXPIRED}: saved plan ${plan.id} was not approved and applied in time`,
      });
  return ended.map((plan) => plan.id);
}
