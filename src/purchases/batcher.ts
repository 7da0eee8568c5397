// Writes the ledger's hot transitions (submitted, succeeded, failed, in doubt, retry) in batches, the way a
// database groups commits: one write at a time, and a batch goes when it is full or when its oldest transition
// has waited `gatherMs`, whichever comes first. A light, steady trickle thus goes in batches of what arrives in
// `gatherMs` rather than as a stream of two-row statements each paying a round trip and a commit; under heavy
// load a batch is whatever arrived while the previous write was in flight. Each caller still learns whether its
// own row moved. A batch the database refuses for what one transition carries (a data exception) is written again
// one transition at a time, so that one bad row fails alone, not every purchase batched with it.
import type { Executor } from "../db/client.js";
import { isDataException } from "../db/sql-state.js";
import { type Moved, type Transition, type TransitionSink, transitionMany } from "./ledger.js";

interface Waiting {
  transition: Transition;
  since: number;
  resolve: (moved: Moved | undefined) => void;
  reject: (error: unknown) => void;
}

export interface BatcherOptions {
  /** Most transitions in one statement. */
  maxBatch?: number;
  /** A batch this size goes without waiting for `gatherMs`. */
  fullBatch?: number;
  /** Longest a transition waits for company before its batch goes (when no write is in flight). */
  gatherMs?: number;
}

export class TransitionBatcher implements TransitionSink {
  private waiting: Waiting[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private readonly maxBatch: number;
  private readonly fullBatch: number;
  private readonly gatherMs: number;

  constructor(
    private readonly db: Executor,
    options: BatcherOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 500;
    this.fullBatch = Math.min(options.fullBatch ?? 64, this.maxBatch);
    this.gatherMs = options.gatherMs ?? 5;
  }

  move(transition: Transition): Promise<Moved | undefined> {
    const result = new Promise<Moved | undefined>((resolve, reject) =>
      this.waiting.push({ transition, since: performance.now(), resolve, reject }),
    );
    this.schedule();
    return result;
  }

  /** Writes everything waiting, without waiting for company, and waits for the writes in flight. */
  async drain(): Promise<void> {
    while (this.writing || this.waiting.length > 0) {
      if (!this.writing) this.write();
      await this.writing;
    }
  }

  /** Starts the next write now if the batch is full, or sets a timer for when its oldest has waited long enough. */
  private schedule(): void {
    if (this.writing || this.waiting.length === 0) return;
    if (this.waiting.length >= this.fullBatch) {
      this.write();
      return;
    }
    if (this.timer) return;
    const waited = performance.now() - (this.waiting[0]?.since ?? 0);
    this.timer = setTimeout(() => this.write(), Math.max(0, this.gatherMs - waited));
  }

  private write(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.writing) return;
    // A purchase moves at most once per statement; a second transition of it waits for the next one.
    const ids = new Set<number>();
    const batch: Waiting[] = [];
    const later: Waiting[] = [];
    for (const waiting of this.waiting) {
      if (batch.length < this.maxBatch && !ids.has(waiting.transition.id)) {
        ids.add(waiting.transition.id);
        batch.push(waiting);
      } else later.push(waiting);
    }
    this.waiting = later;
    if (batch.length === 0) return;
    this.writing = transitionMany(
      this.db,
      batch.map((w) => w.transition),
    ).then(
      (moved) => {
        const byId = new Map(moved.map((m) => [m.id, m]));
        for (const w of batch) w.resolve(byId.get(w.transition.id));
      },
      (error: unknown) => {
        if (batch.length > 1 && isDataException(error)) return this.writeAlone(batch);
        for (const w of batch) w.reject(error);
      },
    );
    void this.writing.finally(() => {
      this.writing = undefined;
      this.schedule();
    });
  }

  /** Each transition of a refused batch in a statement of its own, one after the other: each caller its own answer. */
  private async writeAlone(batch: Waiting[]): Promise<void> {
    for (const w of batch) {
      try {
        const [moved] = await transitionMany(this.db, [w.transition]);
        w.resolve(moved);
      } catch (error) {
        w.reject(error);
      }
    }
  }
}
