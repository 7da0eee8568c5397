// Group commit for ownership changes during an apply: changes that arrive within a few milliseconds, or while
// a write is in flight, go together in one statement; each caller still waits until its own change is stored.
import { setTimeout as delay } from "node:timers/promises";
import type { Db } from "../db/client.js";
import { type OwnedWrite, recordCreated, recordUpdated, removeOwnership } from "./ownership.js";

export type OwnershipChange =
  | ({ kind: "created" } & OwnedWrite)
  | ({ kind: "updated" } & OwnedWrite & { websiteId: number })
  | { kind: "removed"; domain: string; websiteId: number };

interface Waiting {
  change: OwnershipChange;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** At most this many changes per statement (4 parameters each, far below PostgreSQL's limit). */
const BATCH = 500;

export class OwnershipWriter {
  private readonly queue: Waiting[] = [];
  private flushing = false;

  /**
   * `lingerMs`: how long the first change waits for company. Cheap, as requests go on meanwhile, and it
   * matters: one row costs the embedded database about as much as a batch of twenty.
   */
  constructor(
    private readonly db: Db,
    private readonly lingerMs = 5,
  ) {}

  /** Resolves once the change is stored; one domain must not have two changes waiting at once. */
  record(change: OwnershipChange): Promise<void> {
    const stored = new Promise<void>((resolve, reject) => this.queue.push({ change, resolve, reject }));
    if (!this.flushing) void this.flush();
    return stored;
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    if (this.lingerMs > 0) await delay(this.lingerMs);
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, BATCH);
      try {
        await this.write(batch.map((waiting) => waiting.change));
        for (const waiting of batch) waiting.resolve();
      } catch (error) {
        for (const waiting of batch) waiting.reject(error);
      }
    }
    this.flushing = false;
  }

  private async write(changes: readonly OwnershipChange[]): Promise<void> {
    const of = <K extends OwnershipChange["kind"]>(kind: K) =>
      changes.filter((c): c is Extract<OwnershipChange, { kind: K }> => c.kind === kind);
    await recordCreated(this.db, of("created"));
    await recordUpdated(this.db, of("updated"));
    await removeOwnership(this.db, of("removed"));
  }
}
