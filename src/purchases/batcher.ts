// Writes the ledger's hot transitions (submitted, succeeded, failed after verify) in batches: transitions
// requested within a couple of milliseconds of each other go in one statement, the way graphile-worker
// batches job completions. Each caller still learns whether its own row moved.
import type { Executor } from "../db/client.js";
import type { PurchaseState } from "../db/schema.js";
import { type Moved, type TransitionItem, type TransitionSink, transitionMany } from "./ledger.js";

interface Pending {
  from: readonly PurchaseState[];
  to: PurchaseState;
  actor: string;
  items: Array<{
    item: TransitionItem;
    resolve: (moved: Moved | undefined) => void;
    reject: (error: unknown) => void;
  }>;
  timer?: NodeJS.Timeout;
}

export class TransitionBatcher implements TransitionSink {
  private readonly pending = new Map<string, Pending>();
  private readonly flushing = new Set<Promise<void>>();

  constructor(
    private readonly db: Executor,
    private readonly maxBatch = 256,
    private readonly delayMs = 3,
  ) {}

  move(
    from: readonly PurchaseState[],
    to: PurchaseState,
    item: TransitionItem,
    actor: string,
  ): Promise<Moved | undefined> {
    const key = `${from.join(",")}>${to}:${actor}:${Object.keys(item.set).join(",")}`;
    let batch = this.pending.get(key);
    if (!batch) {
      batch = { from, to, actor, items: [] };
      this.pending.set(key, batch);
    }
    const result = new Promise<Moved | undefined>((resolve, reject) =>
      batch.items.push({ item, resolve, reject }),
    );
    if (batch.items.length >= this.maxBatch) this.flush(key);
    else batch.timer ??= setTimeout(() => this.flush(key), this.delayMs);
    return result;
  }

  /** Writes everything pending and waits for writes in progress. */
  async drain(): Promise<void> {
    for (const key of [...this.pending.keys()]) this.flush(key);
    await Promise.all(this.flushing);
  }

  private flush(key: string): void {
    const batch = this.pending.get(key);
    if (!batch) return;
    this.pending.delete(key);
    clearTimeout(batch.timer);
    const write = transitionMany(
      this.db,
      batch.items.map((p) => p.item),
      batch.from,
      batch.to,
      batch.actor,
    ).then(
      (moved) => {
        const byId = new Map(moved.map((m) => [m.id, m]));
        for (const p of batch.items) p.resolve(byId.get(p.item.id));
      },
      (error: unknown) => {
        for (const p of batch.items) p.reject(error);
      },
    );
    this.flushing.add(write);
    void write.finally(() => this.flushing.delete(write));
  }
}
