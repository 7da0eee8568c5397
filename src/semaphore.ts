// A counting semaphore: at most `size` holders at once; the rest wait in arrival order, in two lanes. Tasks that
// start new work and tasks that follow up work already started (`lane: "follow"`) take turns for a freed place
// while both wait, so neither can hold the other back; an urgent task waits in front of both.

export interface WaitOptions {
  /** `start` (the default): new work; `follow`: following up work already started. */
  lane?: "start" | "follow";
  /** Wait in front of every task that is not urgent (behind earlier urgent tasks). */
  urgent?: boolean;
}

export class Semaphore {
  private active = 0;
  private readonly waiting = {
    urgent: [] as Array<() => void>,
    start: [] as Array<() => void>,
    follow: [] as Array<() => void>,
  };
  /** The lane served last while both waited. */
  private lastLane: "start" | "follow" = "follow";

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
    const queue = this.waiting[options.urgent ? "urgent" : (options.lane ?? "start")];
    return new Promise<void>((resolve) => queue.push(resolve)).then(() => this.holding(task));
  }

  private async holding<T>(task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } finally {
      // The place passes straight to the next waiter, so a newcomer cannot overtake the queue.
      const next = this.next();
      if (next) next();
      else this.active--;
    }
  }

  private next(): (() => void) | undefined {
    const { urgent, start, follow } = this.waiting;
    if (urgent.length > 0) return urgent.shift();
    if (start.length > 0 && follow.length > 0) {
      this.lastLane = this.lastLane === "start" ? "follow" : "start";
      return this.waiting[this.lastLane].shift();
    }
    this.lastLane = start.length > 0 ? "start" : "follow";
    return start.shift() ?? follow.shift();
  }
}
