// Waiting for the provider's notification instead of reading: purchases whose verification waits here are looked
// up in the ledger together, one statement every `interval` (sooner when `poke`d, as this process has just
// processed a notification). The ledger is shared, so a notification that reached another replica is seen too: it
// settles the purchase there, and the wait here ends without a read. A notification for the purchase's reference
// that found no purchase (it came before the purchase's own answer was recorded), or found it only as it was being
// recorded (`matched` to it), ends the wait too: the purchase is then read at once.
import { sql } from "drizzle-orm";
import type { Clock } from "../clock.js";
import { type Executor, rows } from "../db/client.js";
import type { PurchaseState } from "../db/schema.js";

const INTERVAL_MS = 250;
/** Purchases looked up per statement. */
const CHUNK = 1000;

export type WatchResult =
  | { kind: "settled"; state: PurchaseState }
  | { kind: "notified" }
  | { kind: "deadline" };

interface Waiting {
  id: number;
  reference: string;
  done: (result: WatchResult) => void;
}

export class SettleWatch {
  private readonly waiting = new Map<number, Waiting>();
  private running = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly db: Executor,
    private readonly clock: Clock,
    private readonly interval = INTERVAL_MS,
  ) {}

  /** Resolves when purchase `id` is no longer `submitted`, a notification named `reference`, or at `until`. */
  wait(id: number, reference: string, until: number): Promise<WatchResult> {
    return new Promise<WatchResult>((resolve) => {
      const stop = new AbortController();
      const entry: Waiting = {
        id,
        reference,
        done: (result) => {
          if (this.waiting.get(id) !== entry) return;
          this.waiting.delete(id);
          stop.abort();
          resolve(result);
        },
      };
      this.waiting.get(id)?.done({ kind: "deadline" });
      this.waiting.set(id, entry);
      this.clock
        .sleep(Math.max(0, until - this.clock.now()), stop.signal)
        .then(() => entry.done({ kind: "deadline" }))
        .catch(() => {});
      void this.run();
    });
  }

  /** Looks at the ledger now (a notification was just processed). */
  poke(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** Purchases waiting now. */
  get size(): number {
    return this.waiting.size;
  }

  private async run(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.waiting.size > 0) {
        const stop = new AbortController();
        await Promise.race([
          this.clock.sleep(this.interval, stop.signal).catch(() => {}),
          new Promise<void>((resolve) => {
            this.wake = resolve;
          }),
        ]);
        stop.abort();
        this.wake = undefined;
        await this.look().catch(() => {
          // The database away for the moment: the next look tries again, and the deadline still ends each wait.
        });
      }
    } finally {
      this.running = false;
    }
  }

  private async look(): Promise<void> {
    const entries = [...this.waiting.values()];
    for (let at = 0; at < entries.length; at += CHUNK) {
      const chunk = entries.slice(at, at + CHUNK);
      const found = await rows<{ id: number | string; state: PurchaseState }>(
        this.db,
        sql`select p.id, p.state from purchases p where p.id in (${sql.join(
          chunk.map((entry) => sql`${entry.id}`),
          sql`, `,
        )}) and (p.state <> 'submitted' or exists (
              select 1 from provider_notifications n where n.reference = p.reference
                and n.outcome in ('unmatched', 'matched')))`,
      );
      for (const row of found) {
        const entry = this.waiting.get(Number(row.id));
        if (!entry) continue;
        entry.done(row.state === "submitted" ? { kind: "notified" } : { kind: "settled", state: row.state });
      }
    }
  }
}
