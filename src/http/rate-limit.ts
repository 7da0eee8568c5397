// A per-service rate limit shared by every concurrent call: the generic cell rate algorithm, with two lanes.
// A caller goes at once while the service is under its rate (bursts bounded by `burst`); past it, callers wait
// in a queue and are let through one per interval. Requests that start new work (a purchase POST) and requests
// that follow up work already started (a verify read) wait in lanes of their own, and while both lanes wait they
// take turns, so neither can hold the other back: a backlog of reads never starves new purchases, and new
// purchases never take more than every other place from the reads. An urgent request (a read whose deadline is
// near) goes before both lanes.
import type { Clock } from "../clock.js";

/** `start`: a request that starts new work; `follow`: one that follows up work already started. */
export type Lane = "start" | "follow";

export interface AcquireOptions {
  signal?: AbortSignal;
  lane?: Lane;
  /** Goes before every request that is not urgent. */
  urgent?: boolean;
}

interface Waiter {
  resolve: () => void;
  reject: (reason: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

export class RateLimiter {
  private readonly intervalMs: number;
  private readonly toleranceMs: number;
  private theoreticalArrival = 0;
  private readonly queues: Record<Lane | "urgent", Waiter[]> = { urgent: [], start: [], follow: [] };
  /** The lane let through last while both waited. */
  private lastLane: Lane = "follow";
  private pumping = false;

  constructor(
    perSecond: number,
    private readonly clock: Clock,
    burst = 1,
  ) {
    this.intervalMs = 1000 / perSecond;
    this.toleranceMs = this.intervalMs * Math.max(0, burst - 1);
  }

  /** Milliseconds the next caller would wait, without reserving. */
  peekDelay(): number {
    const now = this.clock.now();
    const queued = this.waiting() * this.intervalMs;
    return Math.max(0, Math.max(this.theoreticalArrival, now) + queued - this.toleranceMs - now);
  }

  /** Requests waiting for their turn. */
  waiting(): number {
    return this.queues.urgent.length + this.queues.start.length + this.queues.follow.length;
  }

  acquire(options: AcquireOptions | AbortSignal = {}): Promise<void> {
    const {
      signal,
      lane = "start",
      urgent = false,
    } = options instanceof AbortSignal ? { signal: options } : options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.waiting() === 0 && !this.pumping) {
      const now = this.clock.now();
      const arrival = Math.max(this.theoreticalArrival, now);
      if (arrival - this.toleranceMs - now <= 0) {
        this.theoreticalArrival = arrival + this.intervalMs;
        return Promise.resolve();
      }
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal };
      const queue = this.queues[urgent ? "urgent" : lane];
      if (signal) {
        waiter.onAbort = () => {
          const at = queue.indexOf(waiter);
          if (at !== -1) queue.splice(at, 1);
          reject(signal.reason);
        };
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      queue.push(waiter);
      void this.pump();
    });
  }

  /** Lets the waiters through one per interval, choosing the next one only when its turn has come. */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.waiting() > 0) {
        const now = this.clock.now();
        const arrival = Math.max(this.theoreticalArrival, now);
        const wait = arrival - this.toleranceMs - now;
        if (wait > 0) await this.clock.sleep(wait);
        const next = this.next();
        if (!next) break;
        this.theoreticalArrival = arrival + this.intervalMs;
        if (next.onAbort) next.signal?.removeEventListener("abort", next.onAbort);
        next.resolve();
      }
    } finally {
      this.pumping = false;
    }
  }

  private next(): Waiter | undefined {
    const { urgent, start, follow } = this.queues;
    if (urgent.length > 0) return urgent.shift();
    if (start.length > 0 && follow.length > 0) {
      this.lastLane = this.lastLane === "start" ? "follow" : "start";
      return this.queues[this.lastLane].shift();
    }
    if (start.length > 0) {
      this.lastLane = "start";
      return start.shift();
    }
    if (follow.length > 0) {
      this.lastLane = "follow";
      return follow.shift();
    }
    return undefined;
  }
}
