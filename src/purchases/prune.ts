// Retention: settled purchases older than a cutoff leave the ledger with their events (`purchases prune`), after
// being handed to an archive when asked. What the money rules stand on stays: purchases not settled (queued,
// submitting, submitted, in_doubt, unverified), purchases the last reported wallet balance may not include yet
// (answered after it), purchases flagged `reference_clash` until a person decides, every budget day, and the request
// key of every purchase pruned (`pruned_purchases`), so a fire, an intake row or a `buy --key` repeated years later is
// still not bought again — and its reference, so the provider's evidence naming that transaction (a statement line, a
// notification) is not taken for another purchase's; or, for one sent and settled without a reference, its phone,
// amount, plan and last POST, so it stays a rival of an in_doubt purchase that evidence of its transaction could be.
import { sql } from "drizzle-orm";
import type { Database, Executor, Queryable } from "../db/client.js";
import { rows } from "../db/client.js";
import type { PurchaseState } from "../db/schema.js";
import { idArray, PRUNED_KEYS_LOCK, REFERENCE_CLASH } from "./ledger.js";
import { sealLedgerRollups } from "./rollups.js";
import { WALLET_KEY } from "./wallet.js";

/** The states a purchase may be pruned in: settled, nothing left to decide about its money. */
export const PRUNABLE_STATES: readonly PurchaseState[] = ["succeeded", "failed", "rejected", "cancelled"];

/**
 * The advisory lock (two-key form, topsync's space) a prune holds from start to end: one prune at a time on a
 * ledger, so that two never write one archive at once.
 */
export const PRUNING_LOCK: readonly [number, number] = [7263, 4];

/** Purchases per transaction: each batch is archived, then its rows deleted, in one transaction. */
export const PRUNE_BATCH = 5000;

/**
 * Which purchases a prune before `cutoff` takes: settled (by `settled_at`, or else last changed) before it, not
 * answered after the last balance the provider reported (the wallet guard still counts those as in flight), and not
 * flagged `reference_clash`: a person has still to say which purchase the provider's transaction is, and settles
 * it again (whatever its state) when they do.
 */
function prunable(cutoff: Date) {
  return sql`p.state = any(${`{${PRUNABLE_STATES.join(",")}}`}::text[])
    and coalesce(p.settled_at, p.updated_at) < ${cutoff.toISOString()}::timestamptz
    and (p.note is null or p.note not like ${`${REFERENCE_CLASH}%`})
    and (p.answer_seq is null or p.answer_seq <= coalesce(
      (select (k.value->>'seq')::bigint from kv k where k.key = ${WALLET_KEY}), 0))`;
}

export interface PruneCount {
  purchases: number;
  events: number;
}

/** What a prune before `cutoff` would take (the dry run). */
export async function countPrunable(db: Executor, cutoff: Date): Promise<PruneCount> {
  const [row] = await rows<{ purchases: number; events: number }>(
    db,
    sql`with taken as (select p.id from purchases p where ${prunable(cutoff)})
        select (select count(*) from taken)::int as purchases,
          (select count(*) from purchase_events e where e.purchase_id in (select id from taken))::int as events`,
  );
  return { purchases: row?.purchases ?? 0, events: row?.events ?? 0 };
}

/**
 * Takes the purchases a prune before `cutoff` takes, a batch per transaction: locks a batch (rows someone is
 * changing right now are left for next time), hands it to `archive` as JSON lines, one a purchase —
 * `{"purchase": {…the row…}, "events": [{…}, …]}`, the provider's answers exactly as stored — and deletes it once
 * `archive` returns (so it must have the lines safely written by then), keeping each request key in
 * `pruned_purchases`. Then seals the rollups again: the days it pruned from were sealed, and are marked changed.
 */
export async function prunePurchases(
  database: Database,
  cutoff: Date,
  archive?: (lines: string[]) => Promise<void>,
  options: {
    /** Told the totals so far after each batch. */
    onProgress?: (pruned: PruneCount) => void;
  } = {},
): Promise<PruneCount> {
  const total: PruneCount = { purchases: 0, events: 0 };
  let after = 0;
  for (;;) {
    const batch = await database.transaction((tx) => pruneBatch(tx, cutoff, after, archive));
    total.purchases += batch.purchases;
    total.events += batch.events;
    options.onProgress?.({ ...total });
    if (batch.purchases === 0) break;
    after = batch.lastId;
  }
  await sealLedgerRollups(database.db);
  return total;
}

/** One batch of `prunePurchases`, in the caller's transaction: the purchases after id `after`; ends before its commit. */
export async function pruneBatch(
  tx: Queryable,
  cutoff: Date,
  after: number,
  archive?: (lines: string[]) => Promise<void>,
): Promise<PruneCount & { lastId: number }> {
  // row_to_json keeps each stored answer (json) as it came, key order and all.
  const taken = await rows<{ id: number | string; line: string | null }>(
    tx,
    sql`select p.id, case when ${archive !== undefined} then json_build_object('purchase', row_to_json(p),
          'events', coalesce((select json_agg(row_to_json(e) order by e.id) from purchase_events e
                              where e.purchase_id = p.id), '[]'::json))::text end as line
        from purchases p where p.id > ${after} and ${prunable(cutoff)}
        order by p.id limit ${PRUNE_BATCH} for update of p skip locked`,
  );
  if (taken.length === 0) return { purchases: 0, events: 0, lastId: after };
  if (archive) await archive(taken.map((row) => row.line ?? ""));
  // Until this transaction commits, no insert into the ledger starts its statement: one that does afterwards
  // sees the keys below in `pruned_purchases` (PRUNED_KEYS_LOCK says why it must).
  await tx.all(sql`select pg_advisory_xact_lock(${PRUNED_KEYS_LOCK[0]}::int, ${PRUNED_KEYS_LOCK[1]}::int)`);
  const ids = idArray(taken.map((row) => Number(row.id)));
  const [done] = await rows<{ purchases: number; events: number }>(
    tx,
    sql`with keys as (
          insert into pruned_purchases (request_key, purchase_id, state, reference, phone, amount, plan_id, plan_name,
            posted_at)
          select p.request_key, p.id, p.state, p.reference,
            case when s.posted_at is not null then p.phone end,
            case when s.posted_at is not null then coalesce(p.charged_amount, p.amount) end,
            case when s.posted_at is not null then p.plan_id end,
            case when s.posted_at is not null then p.plan_name end,
            s.posted_at
          from purchases p
          -- A purchase sent and settled without a reference keeps what makes it a rival (proof-match.ts).
          left join lateral (select max(e.at) as posted_at from purchase_events e
            where e.purchase_id = p.id and e.to_state = 'submitting'
              and p.reference is null and p.state in ('succeeded', 'failed')) s on true
          where p.id = any(${ids}::bigint[])
          on conflict (request_key) do nothing
        ), events as (
          delete from purchase_events where purchase_id = any(${ids}::bigint[]) returning 1
        ), gone as (
          delete from purchases where id = any(${ids}::bigint[]) returning 1
        )
        select (select count(*) from gone)::int as purchases, (select count(*) from events)::int as events`,
  );
  return {
    purchases: done?.purchases ?? 0,
    events: done?.events ?? 0,
    lastId: Number(taken[taken.length - 1]?.id ?? after),
  };
}

export interface PrunedPurchase {
  purchase_id: number;
  request_key: string;
  state: PurchaseState;
  pruned_at: Date;
}

/** The pruned purchase that held `requestKey`, or had `id`; undefined when none did. */
export async function findPruned(
  db: Executor,
  target: { requestKey: string } | { id: number },
): Promise<PrunedPurchase | undefined> {
  const where =
    "requestKey" in target ? sql`request_key = ${target.requestKey}` : sql`purchase_id = ${target.id}`;
  const [row] = await rows<PrunedPurchase & { purchase_id: number | string; pruned_at: Date | string }>(
    db,
    sql`select purchase_id, request_key, state, pruned_at from pruned_purchases where ${where} limit 1`,
  );
  return row
    ? { ...row, purchase_id: Number(row.purchase_id), pruned_at: new Date(row.pruned_at) }
    : undefined;
}
