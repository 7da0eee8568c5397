// A counting semaphore: at most `size` holders at once, the rest wait in arrival order.

export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  get free(): number {
    return this.size - this.active;
  }

  /** Runs `task` holding a place; a free place is taken at once, without a turn of the event loop. */
  run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active < this.size) {
      this.active++;
      return this.holding(task);
    }
    return new Promise<void>((resolve) => this.waiting.push(resolve)).then(() => this.holding(task));
  }

  private async holding<T>(task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } finally {
      // The place passes straight to the next waiter, so a newcomer cannot overtake the queue.
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
