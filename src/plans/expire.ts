// Plans not applied by their `expires_at` end: the purchases a held plan kept from buying, or an apply cut short left
// queued, are cancelled with the reason `approval_expired`; then their status becomes `expired` and their reservation
// ends.
import type { Executor } from "../db/client.js";
import { cancelExpiring } from "../purchases/plan-rows.js";
import { expirePlans } from "./registry.js";

/** Expires what is due; returns the ids of the plans it ended. */
export async function expireOpenPlans(db: Executor, now: Date, actor: string): Promise<string[]> {
  await cancelExpiring(db, now, actor);
  const ended = await expirePlans(db, now);
  return ended.map((plan) => plan.id);
}
