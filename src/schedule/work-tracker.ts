// Everything the daemon has in progress (fires, purchase passes, polls, sweeps), so a shutdown can wait for
// exactly that work to finish.

export class WorkTracker {
  private readonly running = new Set<Promise<unknown>>();

  get size(): number {
    return this.running.size;
  }

  /** Follows `work` until it settles; its failure is the caller's to handle (it is not rethrown here). */
  track<T>(work: Promise<T>): Promise<T> {
    const followed = work.then(
      () => {},
      () => {},
    );
    this.running.add(followed);
    void followed.finally(() => this.running.delete(followed));
    return work;
  }

  /** Resolves when nothing is in progress, including work started while waiting. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running);
  }
}
