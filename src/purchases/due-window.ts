// The run's window on the queue: due purchases read a few batches ahead and resolved once, handed out to
// claims as send slots free up. Reading is one unlocked statement per window, so a claim costs one statement.
// What a window holds may be taken by another replica meanwhile; the claim notices (the row is locked or no
// longer the version read) and the window is read afresh when that happens often or it grows old.
import type { Executor } from "../db/client.js";
import { type Candidate, type DueFilter, readDue, toCandidates } from "./claim.js";
import type { Catalogue } from "./resolve.js";

/** A window older than this is read again: newer purchases may be due before what it holds. */
const MAX_AGE_MS = 2_000;
/** Rows a claim could not take are left out of reads for this long (someone else holds them). */
const COOL_DOWN_MS = 1_000;

export class DueWindow {
  private held: Candidate[] = [];
  private readAt = 0;
  /** Ids handed to claims that have not finished: still queued, so a read must not return them again. */
  private readonly claiming = new Set<number>();
  private readonly cooling = new Map<number, number>();
  private reading: Promise<void> | undefined;
  /** True once a read found nothing due: the queue is empty for this run until `reset`. */
  exhausted = false;

  constructor(
    private readonly db: Executor,
    private readonly catalogue: Catalogue,
    private readonly size: number,
    private readonly now: () => number,
    private readonly filter: () => DueFilter,
  ) {}

  /** Up to `count` candidates in due order; fewer when the queue is nearly empty, none when it is. */
  async take(count: number): Promise<Candidate[]> {
    if (this.now() - this.readAt > MAX_AGE_MS) this.held = [];
    if (this.held.length < count && !this.exhausted) {
      this.reading ??= this.read(Math.max(this.size, count)).finally(() => {
        this.reading = undefined;
      });
      await this.reading;
    }
    const taken = this.held.splice(0, count);
    for (const candidate of taken) this.claiming.add(candidate.row.id);
    return taken;
  }

  /** A claim ended: its rows are no longer this window's; the ones it lost cool down before a read sees them. */
  settle(taken: readonly Candidate[], lost: readonly Candidate[]): void {
    for (const candidate of taken) this.claiming.delete(candidate.row.id);
    const until = this.now() + COOL_DOWN_MS;
    for (const candidate of lost) this.cooling.set(candidate.row.id, until);
    // Losing half a claim means another claimer works the same part of the queue: read past it.
    if (lost.length > 0 && lost.length * 2 >= taken.length) this.held = [];
  }

  /** Starts over after the queue was found empty (retries may have come due). */
  reset(): void {
    this.exhausted = false;
    this.held = [];
  }

  private async read(limit: number): Promise<void> {
    const now = this.now();
    for (const [id, until] of this.cooling) if (until <= now) this.cooling.delete(id);
    const exclude = [...this.claiming, ...this.cooling.keys(), ...this.held.map((c) => c.row.id)];
    const due = await readDue(this.db, this.filter(), limit, exclude);
    this.readAt = this.now();
    if (due.length === 0) {
      this.exhausted = true;
      return;
    }
    this.held.push(...toCandidates(due, this.catalogue));
  }
}
