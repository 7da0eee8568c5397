// Stored provider notifications that nobody processed: the delivery's connection closed first, or the daemon
// that stored (or was processing) one stopped. Every stored notification is processed once, by whichever replica
// claims it first (processNotification's claim); this file only finds the ones left `received` and frees those
// whose claim has lapsed, and keeps this replica's own claims from lapsing while it works on them.
import { sql } from "drizzle-orm";
import { type Executor, rows } from "../db/client.js";
import { idArray } from "./ledger.js";
import {
  claimUnmatched,
  type NotificationDeps,
  type NotificationResult,
  processClaimed,
  processNotification,
  returnUnmatched,
} from "./notifications.js";

/** A notification still `received` this long after it was stored was left behind by whoever stored it. */
export const BACKLOG_AGE_MS = 60_000;
/**
 * A claim not renewed for this long belongs to a processor that stopped. A live replica renews its claims at
 * every pass (every 30 s), so only a stopped one lets a claim get this old.
 */
export const CLAIM_LEASE_MS = 5 * 60_000;
/**
 * Rows stored longer ago than this are committed: the scan's low-water mark may pass them. (An id is taken when
 * its insert runs, so a row with a lower id that is not visible yet belongs to an insert still running; those
 * last milliseconds, never this long.)
 */
const SETTLED_AFTER = "10 minutes";
const BATCH = 200;

/**
 * The lowest id at or after `from` that a pass must still look at: the oldest notification still `received`,
 * or the first after the last one old enough to be surely committed; `from` when nothing says more. It lets
 * each pass read a range of the primary key instead of the whole table, which keeps every notification ever
 * received. The first call (`from` 0) reads the table once.
 */
export async function backlogMark(db: Executor, from: number): Promise<number> {
  const [found] = await rows<{ mark: string | number | null }>(
    db,
    sql`select least(
          (select min(id) from provider_notifications where id >= ${from} and outcome = 'received'),
          (select max(id) + 1 from provider_notifications
            where id >= ${from} and received_at < now() - ${SETTLED_AFTER}::interval)
        ) as mark`,
  );
  return found?.mark === null || found?.mark === undefined ? from : Number(found.mark);
}

/**
 * Notifications from id `from` on, still `received` `BACKLOG_AGE_MS` after they were stored, that nobody is
 * processing: never claimed, or claimed longer than `CLAIM_LEASE_MS` ago. A lapsed claim is released here so
 * that processNotification can claim the row again; replicas passing at once skip each other's locked rows.
 */
export async function releaseBacklog(db: Executor, from: number, limit = BATCH): Promise<number[]> {
  const released = await rows<{ id: string | number }>(
    db,
    sql`with due as (
          select id from provider_notifications
          where id >= ${from} and outcome = 'received'
            and received_at < now() - ${`${BACKLOG_AGE_MS} milliseconds`}::interval
            and (processed_at is null or processed_at < now() - ${`${CLAIM_LEASE_MS} milliseconds`}::interval)
          order by id limit ${limit} for update skip locked
        )
        update provider_notifications n set processed_at = null from due where n.id = due.id returning n.id`,
  );
  return released.map((r) => Number(r.id)).sort((a, b) => a - b);
}

/** Releases one notification still `received` whose claim has lapsed (a delivery of its body again). */
export async function releaseLapsed(db: Executor, id: number): Promise<void> {
  await rows(
    db,
    sql`update provider_notifications set processed_at = null
        where id = ${id} and outcome = 'received'
          and processed_at < now() - ${`${CLAIM_LEASE_MS} milliseconds`}::interval`,
  );
}

/** Renews the claims on notifications still being processed (`received`, claimed). */
export async function renewClaims(db: Executor, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await rows(
    db,
    sql`update provider_notifications set processed_at = now()
        where id = any(${idArray(ids)}::bigint[]) and outcome = 'received' and processed_at is not null`,
  );
}

/** This replica's way to process stored notifications: what it is working on, and where its passes start. */
export class NotificationBacklog {
  private readonly processing = new Set<number>();
  private mark = 0;
  private markKnown = false;

  constructor(
    readonly deps: NotificationDeps,
    /** Told of each notification this replica processed. */
    private readonly onProcessed: (result: NotificationResult) => void = () => {},
  ) {}

  /**
   * Processes a stored notification unless it is done or someone is on it; `again` for a body delivered again,
   * whose first processor may have stopped.
   */
  async process(id: number, again = false): Promise<NotificationResult | undefined> {
    if (this.processing.has(id)) return undefined;
    this.processing.add(id);
    try {
      if (again) await releaseLapsed(this.deps.db, id);
      const result = await processNotification(this.deps, id);
      if (result) this.onProcessed(result);
      return result;
    } finally {
      this.processing.delete(id);
    }
  }

  /**
   * Looks again at the unmatched notifications a purchase gone in_doubt since may explain (claimUnmatched): each
   * under this replica's claim, kept from lapsing like the others. Tells `onProcessed` of those that came to a new
   * outcome; one still unmatched was told of when it first was.
   */
  async retryUnmatched(signal?: AbortSignal): Promise<NotificationResult[]> {
    const claimed = await claimUnmatched(this.deps, new Date(this.deps.clock.now()));
    for (const row of claimed) this.processing.add(Number(row.id));
    const results: NotificationResult[] = [];
    let next = 0;
    try {
      for (; next < claimed.length && !signal?.aborted; next++) {
        const row = claimed[next]!;
        const result = await processClaimed(this.deps, row);
        this.processing.delete(Number(row.id));
        if (!result) continue;
        results.push(result);
        if (!result.repeated) this.onProcessed(result);
      }
    } finally {
      // Those not looked at (the daemon stops, or the look failed) go back to unmatched as they were.
      await returnUnmatched(this.deps.db, claimed.slice(next));
      for (const row of claimed) this.processing.delete(Number(row.id));
    }
    return results;
  }

  /** Keeps this replica's claims from lapsing; call it more often than `CLAIM_LEASE_MS`. */
  renew(): Promise<void> {
    return renewClaims(this.deps.db, [...this.processing]);
  }

  /** Processes, oldest first, every notification left `received`; stops early when `signal` aborts. */
  async pass(signal?: AbortSignal): Promise<number> {
    this.mark = await backlogMark(this.deps.db, this.markKnown ? this.mark : 0);
    this.markKnown = true;
    let processed = 0;
    for (let from = this.mark; ; ) {
      const due = await releaseBacklog(this.deps.db, from);
      for (const id of due) {
        if (signal?.aborted) return processed;
        if (await this.process(id)) processed++;
      }
      if (due.length < BATCH) return processed;
      from = due[due.length - 1]! + 1;
    }
  }
}
