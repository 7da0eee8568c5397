// The ledger as a statement is matched against it, read in bounded pieces, never a whole period at once: the
// purchases a chunk of lines names by reference, the in_doubt purchases a line could be, and the purchases the
// period holds, page by page in the order they were sent.
import { sql } from "drizzle-orm";
import { type Executor, rows } from "../db/client.js";
import type { PurchaseState } from "../db/schema.js";

export interface LedgerRow {
  id: number | string;
  state: PurchaseState;
  reference: string | null;
  phone: string;
  amount: string | null;
}

const COLUMNS = sql`id, state, reference, phone, coalesce(charged_amount, amount)::text as amount`;
/** What the sweep for purchases the statement does not list needs of each (a page at a time). */
const SWEPT = sql`id, state, reference, coalesce(charged_amount, amount)::text as amount`;

/**
 * The purchases that carry any of these references, whenever they were sent (the reference index, probed), those
 * that carried one in an attempt before a person requeued them (the state is how that attempt ended), and those
 * `purchases prune` took (their reference kept; no amount, phone or charge any more): a line naming one is that
 * purchase's, not a debit without a ledger row, nor evidence for another purchase.
 */
export function purchasesByReference(
  db: Executor,
  references: readonly string[],
): Promise<Array<LedgerRow & { earlier: boolean }>> {
  if (references.length === 0) return Promise.resolve([]);
  const wanted = sql`array(select jsonb_array_elements_text(${JSON.stringify(references)}::jsonb))`;
  return rows<LedgerRow & { earlier: boolean }>(
    db,
    sql`select ${COLUMNS}, false as earlier from purchases where reference = any(${wanted})
        union all
        select purchase_id, state, reference, '', null, true from earlier_references e
        where reference = any(${wanted}) and not exists (select 1 from purchases p where p.reference = e.reference)
        union all
        select purchase_id, state, reference, '', null, false from pruned_purchases q where reference = any(${wanted})
          and not exists (select 1 from purchases p where p.reference = q.reference)
          and not exists (select 1 from earlier_references e where e.reference = q.reference)`,
  );
}

/** The references of these purchases (ledger or pruned), by id. */
export async function referencesOf(db: Executor, ids: readonly number[]): Promise<Map<number, string>> {
  const wanted = sql`array(select jsonb_array_elements_text(${JSON.stringify(ids.map(String))}::jsonb)::bigint)`;
  const found = await rows<{ id: number | string; reference: string | null }>(
    db,
    sql`select id, reference from purchases where id = any(${wanted})
        union all
        select purchase_id, reference from pruned_purchases where purchase_id = any(${wanted})`,
  );
  return new Map(found.filter((r) => r.reference !== null).map((r) => [Number(r.id), r.reference!]));
}

/**
 * The in_doubt purchases a line of [from, to] could be: sent in it, or moved since it began. A ledger holds few
 * (a purchase is in_doubt until a person or a proof settles it), so they are read together.
 */
export function inDoubtPurchases(db: Executor, from: Date, to: Date): Promise<LedgerRow[]> {
  const [start, end] = [from.toISOString(), to.toISOString()];
  return rows<LedgerRow>(
    db,
    sql`select ${COLUMNS} from purchases
        where state = 'in_doubt' and (submitted_at between ${start} and ${end}
          or (submitted_at is null and created_at between ${start} and ${end}) or updated_at >= ${start})`,
  );
}

/**
 * The purchases with a reference sent in [from, to], in pages of at most `page` rows in the order they were sent
 * (then by id): each page starts where the last ended, so memory holds one page whatever the period's size. The
 * key is the time as the database writes it, so no microsecond is lost between pages.
 */
export async function* purchasesSentBetween(
  db: Executor,
  from: Date,
  to: Date,
  page: number,
): AsyncGenerator<Array<Omit<LedgerRow, "phone">>> {
  const end = to.toISOString();
  // A purchase settled by proof from in_doubt has no submitted_at: its creation stands in for it.
  for (const sent of [true, false]) {
    let after = { at: from.toISOString(), id: "0" };
    for (;;) {
      const found = await rows<Omit<LedgerRow, "phone"> & { key: string }>(
        db,
        sent
          ? sql`select ${SWEPT}, submitted_at::text as key from purchases
                where reference is not null and submitted_at >= ${after.at}::timestamptz and submitted_at <= ${end}
                  and (submitted_at, id) > (${after.at}::timestamptz, ${after.id}::bigint)
                order by submitted_at, id limit ${page}`
          : sql`select ${SWEPT}, created_at::text as key from purchases
                where reference is not null and submitted_at is null
                  and created_at >= ${after.at}::timestamptz and created_at <= ${end}
                  and (created_at, id) > (${after.at}::timestamptz, ${after.id}::bigint)
                order by created_at, id limit ${page}`,
      );
      if (found.length > 0) yield found;
      if (found.length < page) break;
      const last = found[found.length - 1]!;
      after = { at: last.key, id: String(last.id) };
    }
  }
}
