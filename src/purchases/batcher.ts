// Writes the ledger's hot transitions (submitted, succeeded, failed, in doubt, retry) in batches, the way a
// database groups commits: while one write is in flight, the transitions asked for meanwhile wait and go
// together in the next statement, whatever their kinds. Idle, the first transition waits a few milliseconds
// for company; busy, batches grow with the load instead of the number of statements. Each caller still
// learns whether its own row moved.
import type { Executor } from "../db/client.js";
import { type Moved, type Transition, type TransitionSink, transitionMany } from "./ledger.js";

interface Waiting {
  transition: Transition;
  resolve: (moved: Moved | undefined) => void;
  reject: (error: unknown) => void;
}

export class TransitionBatcher implements TransitionSink {
  private waiting: Waiting[] = [];
  private scheduled = false;
  private writing: Promise<void> | undefined;

  constructor(
    private readonly db: Executor,
    private readonly maxBatch = 500,
    private readonly gatherMs = 5,
  ) {}

  move(transition: Transition): Promise<Moved | undefined> {
    const result = new Promise<Moved | undefined>((resolve, reject) =>
      this.waiting.push({ transition, resolve, reject }),
    );
    if (!this.scheduled && !this.writing) {
      this.scheduled = true;
      setTimeout(() => {
        this.scheduled = false;
        if (!this.writing) this.write();
      }, this.gatherMs);
    }
    return result;
  }

  /** Writes everything waiting and waits for the writes in flight. */
  async drain(): Promise<void> {
    while (this.writing || this.waiting.length > 0) {
      if (!this.writing) this.write();
      await this.writing;
    }
  }

  private write(): void {
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
        for (const w of batch) w.reject(error);
      },
    );
    void this.writing.finally(() => {
      this.writing = undefined;
      if (this.waiting.length > 0) this.write();
    });
  }
}
