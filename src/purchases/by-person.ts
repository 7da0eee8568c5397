// What a person does to one purchase (the CLI's `purchases resolve/requeue`, the console's buttons; a cancel, which a saved plan may hold, is plans/cancel.ts): each
// a transition that names the states it moves from, with the person as the event's actor and their reason. A
// reference another purchase carries settles nothing and flags both purchases `reference_clash`.
import type { Executor } from "../db/client.js";
import type { PurchaseState } from "../db/schema.js";
import {
  CLASH_RESOLVABLE_STATES,
  flagReferenceClash,
  isClash,
  type Moved,
  otherPurchaseWithReference,
  type PurchaseRow,
  REFERENCE_CLASH,
  RESOLVABLE_STATES,
  requeueByPerson,
  resolveByPerson,
} from "./ledger.js";

export type PersonOutcome =
  | { ok: true; moved: Moved }
  | { ok: false; code: "WRONG_STATE"; allowed: readonly PurchaseState[] }
  | { ok: false; code: "REFERENCE_TAKEN"; reference: string; holder: { id: number; state: string } };

export interface PersonAct {
  actor: string;
  reason: string;
}

export async function resolveAsPerson(
  db: Executor,
  row: PurchaseRow,
  to: "succeeded" | "failed",
  reference: string | undefined,
  act: PersonAct,
): Promise<PersonOutcome> {
  // A purchase flagged reference_clash may be settled again whatever its state: a person decides which purchase
  // the provider's transaction is, and the settlement clears the flag.
  const clash = row.note?.startsWith(REFERENCE_CLASH) ?? false;
  const allowed = clash ? CLASH_RESOLVABLE_STATES : RESOLVABLE_STATES;
  const holder = reference ? await otherPurchaseWithReference(db, reference, row.id) : undefined;
  if (holder) return takenReference(db, row.id, holder, reference!, act.actor);
  const moved = await resolveByPerson(db, row.id, to, { reference, clash }, act);
  if (isClash(moved)) {
    const taken = await otherPurchaseWithReference(db, moved.reference, row.id);
    return takenReference(
      db,
      row.id,
      taken ?? { id: moved.clashWith, state: "unknown" },
      moved.reference,
      act.actor,
    );
  }
  return moved ? { ok: true, moved } : { ok: false, code: "WRONG_STATE", allowed };
}

export async function requeueAsPerson(
  db: Executor,
  row: PurchaseRow,
  act: PersonAct,
): Promise<PersonOutcome> {
  const moved = await requeueByPerson(db, row.id, act);
  return moved ? { ok: true, moved } : { ok: false, code: "WRONG_STATE", allowed: ["failed", "rejected"] };
}

/**
 * A reference another purchase carries: nothing is settled, and both purchases are flagged `reference_clash`
 * (the person's word and the ledger disagree about which purchase a transaction is).
 */
async function takenReference(
  db: Executor,
  id: number,
  holder: { id: number; state: string },
  reference: string,
  actor: string,
): Promise<PersonOutcome> {
  await flagReferenceClash(
    db,
    [id, holder.id],
    `a person named reference ${reference} for purchase ${id} (purchases resolve --reference), which purchase ${holder.id} carries; one provider transaction cannot be two purchases, a person decides which purchase it is`,
    { actor },
  );
  return { ok: false, code: "REFERENCE_TAKEN", reference, holder };
}
