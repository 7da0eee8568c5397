// Reading the ledger for people: a page of purchases, one purchase by id or reference, and its history.
import { and, desc, eq, gte, inArray, or } from "drizzle-orm";
import type { Db } from "../db/client.js";
import {
  earlierReferences,
  type PurchaseState,
  providerNotifications,
  purchaseEvents,
  purchases,
} from "../db/schema.js";
import { DataError } from "../errors.js";
import { inert } from "../text/inert.js";
import type { PurchaseRow } from "./ledger.js";
import { findPruned } from "./prune.js";

export interface ListFilter {
  state?: PurchaseState;
  /** Created at or after. */
  since?: Date;
  job?: string;
}

/** The newest purchases matching the filter, newest first. */
export function listPurchases(db: Db, filter: ListFilter, limit: number): Promise<PurchaseRow[]> {
  return db
    .select()
    .from(purchases)
    .where(
      and(
        filter.state ? eq(purchases.state, filter.state) : undefined,
        filter.since ? gte(purchases.created_at, filter.since) : undefined,
        filter.job ? eq(purchases.job_name, filter.job) : undefined,
      ),
    )
    .orderBy(desc(purchases.id))
    .limit(limit);
}

/**
 * A purchase by its id or its provider reference (its current one, or one of an attempt before a person requeued it);
 * not found is bad input (exit 65).
 */
export async function findPurchase(db: Db, target: string): Promise<PurchaseRow> {
  // Digits are an id when they can be one; a longer run of digits can only be a reference.
  const id = /^\d+$/.test(target) ? Number(target) : Number.NaN;
  const byId = Number.isSafeInteger(id)
    ? eq(purchases.id, id)
    : or(
        eq(purchases.reference, target),
        // An attempt's reference from before a person requeued the purchase still names it.
        inArray(
          purchases.id,
          db
            .select({ id: earlierReferences.purchase_id })
            .from(earlierReferences)
            .where(eq(earlierReferences.reference, target)),
        ),
      );
  const [row] = await db.select().from(purchases).where(byId).limit(1);
  if (row) return row;
  const pruned = Number.isSafeInteger(id) ? await findPruned(db, { id }) : undefined;
  if (pruned)
    throw new DataError(
      `purchase ${pruned.purchase_id} (${pruned.state}) was pruned from the ledger on ${pruned.pruned_at.toISOString()}; ` +
        "its row and events are in the archive written then, if one was",
      "PURCHASE_PRUNED",
    );
  throw new DataError(`no purchase with id or reference "${inert(target)}"`, "PURCHASE_NOT_FOUND");
}

/** A purchase and its events, oldest first. */
export async function readPurchaseHistory(db: Db, target: string) {
  const row = await findPurchase(db, target);
  const events = await db
    .select()
    .from(purchaseEvents)
    .where(eq(purchaseEvents.purchase_id, row.id))
    .orderBy(purchaseEvents.id);
  return { row, events };
}

/** Provider notifications tied to a purchase (settled or matched to it, or naming its reference), oldest first. */
export function readPurchaseNotifications(db: Db, row: Pick<PurchaseRow, "id" | "reference">) {
  const tied = eq(providerNotifications.purchase_id, row.id);
  return db
    .select({
      id: providerNotifications.id,
      received_at: providerNotifications.received_at,
      status: providerNotifications.status,
      reference: providerNotifications.reference,
      amount: providerNotifications.amount,
      outcome: providerNotifications.outcome,
      reason: providerNotifications.reason,
    })
    .from(providerNotifications)
    .where(row.reference ? or(tied, eq(providerNotifications.reference, row.reference)) : tied)
    .orderBy(providerNotifications.id)
    .limit(100);
}
