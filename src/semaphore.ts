// A counting semaphore: at most `size` holders at once; the rest wait in arrival order, except that a task
// run `ahead` waits in front of every task that was not.

export interface WaitOptions {
  /** Wait in front of the ordinary waiters (behind earlier tasks run ahead). */
  ahead?: boolean;
}

export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly waitingAhead: Array<() => void> = [];

  constructor(private readonly size: number) {}

  get free(): number {
    return this.size - this.active;
  }

  /** Runs `task` holding a place; a free place is taken at once, without a turn of the event loop. */
  run<T>(task: () => Promise<T>, options: WaitOptions = {}): Promise<T> {
    if (this.active < this.size) {
      this.active++;
      return this.holding(task);
    }
    const queue = options.ahead ? this.waitingAhead : this.waiting;
    return new Promise<void>((resolve) => queue.push(resolve)).then(() => this.holding(task));
  }

  private async holding<T>(task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } finally {
      // The place passes straight to the next waiter, so a newcomer cannot overtake the queue.
      const next = this.waitingAhead.shift() ?? this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
