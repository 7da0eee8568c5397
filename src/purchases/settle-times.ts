// When to make a purchase's first verify read: when the provider usually has its final status. Learned per
// network from recent purchases: after a first read that found the purchase final the wait shrinks a little;
// after one that found it not yet final it grows, at least to the last read that still found it not final and at
// most a step past the read that found it final, so that about nine first reads in ten find the final status and
// most purchases cost one read. A new process starts from the ledger: the median time from the POST answer to the
// settlement of the network's recent purchases. The wait is never below `verification.initial_delay`, nor above
// `initial_delay + max_interval` (by then a poll would have read twice; a provider whose first read is never
// final, however late it comes, cannot push the first read towards `timeout`), nor above `timeout`.
import { sql } from "drizzle-orm";
import { type Executor, rows } from "../db/client.js";

/** The share of first reads that should find the final status. */
const TARGET = 0.9;
/** How far one first read moves the wait (relative). */
const STEP = 0.1;
/** Purchases of the ledger read to start from, and how recent. */
const SEED_PURCHASES = 500;
const SEED_SINCE_MS = 24 * 3_600_000;

/** The bounds of the wait for a verification config (see above). */
export function settleBounds(verification: {
  initial_delay: number;
  max_interval: number;
  timeout: number;
}): { min: number; max: number } {
  const max = Math.min(verification.timeout, verification.initial_delay + verification.max_interval);
  return { min: Math.min(verification.initial_delay, max), max };
}

export class SettleTimes {
  private readonly waits = new Map<string, number>();
  private seeded: Promise<void> | undefined;

  constructor(private readonly bounds: { min: number; max: number }) {}

  /** Milliseconds after its POST answer a purchase of `network` is first read. */
  firstRead(network: string | undefined): number {
    const learned = network === undefined ? undefined : this.waits.get(network);
    return this.clamp(learned ?? this.bounds.min);
  }

  /**
   * What the first read of a purchase of `network` found: its final status, or not. When not, `later` says how long
   * after its POST answer the last read found it not yet final and, when one did, a read found it final.
   */
  observe(
    network: string | undefined,
    final: boolean,
    later: { notFinalAfter?: number; finalAfter?: number } = {},
  ): void {
    if (network === undefined) return;
    const wait = this.firstRead(network);
    let next = wait * (1 - STEP * (1 - TARGET));
    if (!final) {
      next = Math.max(wait * (1 + STEP * TARGET), later.notFinalAfter ?? 0);
      if (later.finalAfter !== undefined)
        next = Math.min(next, Math.max(wait, later.finalAfter) * (1 + STEP * TARGET));
    }
    this.waits.set(network, this.clamp(next));
  }

  /** Starts from the ledger's recent purchases, once (a failed read starts from `initial_delay`). */
  seed(db: Executor, now: number): Promise<void> {
    this.seeded ??= this.readLedger(db, now).catch(() => {});
    return this.seeded;
  }

  private async readLedger(db: Executor, now: number): Promise<void> {
    const found = await rows<{ network_id: string; ms: number | string }>(
      db,
      sql`select network_id, percentile_cont(0.5) within group (order by ms) as ms
          from (select network_id, extract(epoch from settled_at - submitted_at) * 1000 as ms from purchases
                where submitted_at is not null and submitted_at >= ${new Date(now - SEED_SINCE_MS).toISOString()}
                  and state in ('succeeded', 'failed') and settled_at is not null and network_id is not null
                order by submitted_at desc limit ${SEED_PURCHASES}) recent
          group by network_id`,
    );
    for (const row of found) {
      const ms = Number(row.ms);
      if (Number.isFinite(ms) && !this.waits.has(row.network_id))
        this.waits.set(row.network_id, this.clamp(ms));
    }
  }

  private clamp(ms: number): number {
    return Math.min(this.bounds.max, Math.max(this.bounds.min, Math.round(ms)));
  }
}
