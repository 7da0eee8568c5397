// The intake table: other systems insert into `purchase_requests`; each row moves into the
// ledger exactly once, under its caller's request_key, and gets the purchase id written back.
import { sql } from "drizzle-orm";
import { type Db, rows } from "../../db/client.js";
import { isMoneyText, parseMoney } from "../../money.js";
import { parseSizeMb } from "../../reseller/size.js";
import { insertPurchases, type NewPurchase } from "../ledger.js";

export interface IntakeResult {
  /** Requests taken from the table: those queued in the ledger and those refused. */
  moved: number;
  invalid: number;
  /** Requests refused outright (intakeRefusal): nothing entered the ledger, their `error` says why. */
  refused: number;
}

/** Moves up to `batchSize` pending requests into the ledger in one transaction; safe to run concurrently. */
export async function ingestIntake(db: Db, batchSize: number, actor: string): Promise<IntakeResult> {
  return db.transaction(async (txn) => {
    const tx = txn as unknown as Db;
    const pending = await rows<IntakeRow>(
      tx,
      sql`select id, request_key, network, plan_id, plan_size, plan_type, plan_name_contains, phone, ported,
            not_before, max_price::text as max_price, requested_by
          from purchase_requests where processed_at is null order by id limit ${batchSize} for update skip locked`,
    );
    if (pending.length === 0) return { moved: 0, invalid: 0, refused: 0 };
    const refused = pending.flatMap((r) => {
      const why = intakeRefusal(r);
      return why ? [{ id: r.id, why }] : [];
    });
    const accepted = pending.filter((r) => !refused.some((x) => x.id === r.id));
    const invalid =
      refused.length + accepted.filter((r) => r.plan_size && parseSizeMb(r.plan_size) === null).length;
    const now = new Date();
    await insertPurchases(
      tx,
      accepted.map((r) => intakePurchase(r, now)),
      actor,
      "accepted from purchase_requests",
    );
    if (accepted.length > 0) {
      const ids = accepted.map((r) => sql`${r.id}::bigint`);
      await tx.execute(sql`
        update purchase_requests r set processed_at = now(), purchase_id = p.id,
          error = case when r.plan_size is not null and r.plan_id is null and p.plan_selector is null
                       then 'plan_size "' || r.plan_size || '" is not a size' end
        from purchases p where p.request_key = r.request_key and r.id in (${sql.join(ids, sql`, `)})`);
      // A key whose purchase `purchases prune` removed is taken all the same: nothing is bought again.
      await tx.execute(sql`
        update purchase_requests r set processed_at = now(), purchase_id = k.purchase_id,
          error = 'request_key was used by purchase ' || k.purchase_id || ' (' || k.state || '), pruned from the ledger'
        from pruned_purchases k
        where k.request_key = r.request_key and r.processed_at is null and r.id in (${sql.join(ids, sql`, `)})`);
    }
    for (const { id, why } of refused) {
      await tx.execute(
        sql`update purchase_requests set processed_at = now(), error = ${why} where id = ${id}`,
      );
    }
    return { moved: pending.length, invalid, refused: refused.length };
  });
}

/**
 * Keys have owners: `job:` keys belong to job fires and `buy:` keys to `topsync buy`, so an intake row cannot
 * take (and silently cancel) a purchase another source will make.
 */
export const RESERVED_KEY_PREFIXES = ["job:", "buy:"] as const;

/**
 * The longest each text column of a request may be. A CRM's key is an id (a UUID is 36), a network or plan a short
 * name, a phone some 15 digits however it is written: far longer is a bug upstream, refused with its error rather
 * than carried into the ledger, its events and every list and report that shows it.
 */
const TEXT_LIMITS = {
  request_key: 500,
  network: 100,
  plan_id: 100,
  plan_size: 100,
  plan_type: 100,
  plan_name_contains: 100,
  phone: 64,
  requested_by: 200,
} as const satisfies { [K in keyof IntakeRow]?: IntakeRow[K] extends string | null ? number : never };
const TEXT_COLUMNS = Object.keys(TEXT_LIMITS) as Array<keyof typeof TEXT_LIMITS>;

/** Why an intake request is refused outright (nothing enters the ledger), or null. Checked like config. */
export function intakeRefusal(r: IntakeRow): string | null {
  const key = r.request_key.trim().toLowerCase();
  const prefix = RESERVED_KEY_PREFIXES.find((p) => key.startsWith(p));
  if (prefix)
    return `request_key may not start with "${prefix}": those keys belong to ${prefix === "job:" ? "job fires" : "topsync buy"}`;
  if (r.request_key.trim() === "") return "request_key is empty";
  const long = TEXT_COLUMNS.find((column) => (r[column]?.length ?? 0) > TEXT_LIMITS[column]);
  if (long) return `${long} is ${r[long]?.length} characters, more than the ${TEXT_LIMITS[long]} it may have`;
  if (r.network.trim() === "") return "network is empty";
  if (r.plan_id !== null && r.plan_id.trim() === "") return "plan_id is empty";
  if (r.plan_id === null && r.plan_size === null) return "give plan_id or plan_size";
  if (r.max_price !== null && !(isMoneyText(r.max_price) && parseMoney(r.max_price).gt(0)))
    return `max_price must be an amount above 0, got ${r.max_price}`;
  // PostgreSQL's infinity and -infinity come out of either driver as no time at all (an Invalid Date).
  if (r.not_before !== null && !Number.isFinite(new Date(r.not_before).getTime()))
    return "not_before must be a date and time (infinity and -infinity are not)";
  return null;
}

/** The ledger row an intake request becomes (also what `topsync plan` shows for requests not moved yet). */
export function intakePurchase(r: IntakeRow, now = new Date()): NewPurchase {
  const sizeMb = r.plan_size ? parseSizeMb(r.plan_size) : null;
  return {
    request_key: r.request_key,
    source: "intake",
    job_name: null,
    network: r.network,
    plan_id: r.plan_id,
    plan_selector:
      sizeMb === null
        ? null
        : {
            size_mb: sizeMb,
            type: r.plan_type ?? undefined,
            name_contains: r.plan_name_contains ?? undefined,
          },
    phone: r.phone.replace(/\s/g, ""),
    ported: r.ported,
    max_price: r.max_price,
    requested_by: r.requested_by ?? "intake",
    not_before: r.not_before ? new Date(r.not_before) : now,
  };
}

export interface IntakeRow {
  id?: number | string;
  request_key: string;
  network: string;
  plan_id: string | null;
  plan_size: string | null;
  plan_type: string | null;
  plan_name_contains: string | null;
  phone: string;
  ported: boolean;
  not_before: Date | string | null;
  max_price: string | null;
  requested_by: string | null;
}
