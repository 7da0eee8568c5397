// A per-service rate limit shared by every concurrent call: the generic cell rate algorithm. Each
// caller reserves the next free slot synchronously, then waits for it, so concurrent callers never
// exceed `perSecond` on average and bursts are bounded by `burst`.
import type { Clock } from "../clock.js";

export class RateLimiter {
  private readonly intervalMs: number;
  private readonly toleranceMs: number;
  private theoreticalArrival = 0;

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
    return Math.max(0, Math.max(this.theoreticalArrival, now) - this.toleranceMs - now);
  }

  async acquire(signal?: AbortSignal): Promise<void> {
    const now = this.clock.now();
    const arrival = Math.max(this.theoreticalArrival, now);
    const wait = arrival - this.toleranceMs - now;
    this.theoreticalArrival = arrival + this.intervalMs;
    if (wait > 0) await this.clock.sleep(wait, signal);
  }
}
