// Group commit for ownership changes during an apply: changes that arrive within a few milliseconds, or while
// a write is in flight, go together in one statement; each caller still waits until its own change is stored.
import { setTimeout as delay } from "node:timers/promises";
import type { Db } from "../db/client.js";
import type { OwnershipRecord, SecretHashes } from "./model.js";
import {
  type OwnedWrite,
  recordCreated,
  recordPending,
  recordUpdated,
  removeOwnership,
  restoreOwnership,
} from "./ownership.js";

export type OwnershipChange =
  | { kind: "pending"; domain: string; secrets: SecretHashes }
  | ({ kind: "created" } & OwnedWrite)
  | ({ kind: "updated" } & OwnedWrite & { websiteId: number })
  | { kind: "removed"; domain: string; websiteId: number }
  | { kind: "restored"; domain: string; previous: OwnershipRecord | null };

interface Waiting {
  change: OwnershipChange;
  resolve: (replaced: OwnershipRecord | null) => void;
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
    return this.enqueue(change).then(() => undefined);
  }

  /**
   * Records the domain as topsync's before its create is sent (see recordPending); resolves, once stored, with
   * the row it replaced, which `restored` puts back when the create certainly did not happen.
   */
  pending(domain: string, secrets: SecretHashes): Promise<OwnershipRecord | null> {
    return this.enqueue({ kind: "pending", domain, secrets });
  }

  private enqueue(change: OwnershipChange): Promise<OwnershipRecord | null> {
    const stored = new Promise<OwnershipRecord | null>((resolve, reject) =>
      this.queue.push({ change, resolve, reject }),
    );
    if (!this.flushing) void this.flush();
    return stored;
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    if (this.lingerMs > 0) await delay(this.lingerMs);
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, BATCH);
      try {
        const replaced = await this.write(batch.map((waiting) => waiting.change));
        for (const waiting of batch) waiting.resolve(replaced.get(waiting.change.domain) ?? null);
      } catch (error) {
        for (const waiting of batch) waiting.reject(error);
      }
    }
    this.flushing = false;
  }

  /** Stores the changes; the rows the pending ones replaced, by domain. */
  private async write(changes: readonly OwnershipChange[]): Promise<Map<string, OwnershipRecord>> {
    const of = <K extends OwnershipChange["kind"]>(kind: K) =>
      changes.filter((c): c is Extract<OwnershipChange, { kind: K }> => c.kind === kind);
    const replaced = await recordPending(this.db, of("pending"));
    await recordCreated(this.db, of("created"));
    await recordUpdated(this.db, of("updated"));
    await removeOwnership(this.db, of("removed"));
    await restoreOwnership(this.db, of("restored"));
    return replaced;
  }
}
