// A sleep that a wake-up or a stop cuts short: what the daemon's loops wait on between polls and sweeps.
import type { Clock } from "../clock.js";

export class Waker {
  private interrupt: (() => void) | undefined;
  private woken = false;

  /** Ends the current wait, or the next one if none is waiting. */
  wake(): void {
    this.woken = true;
    this.interrupt?.();
  }

  /** Waits `ms`, or less when woken or when `signal` aborts. */
  async wait(ms: number, clock: Clock, signal: AbortSignal): Promise<void> {
    if (this.woken || signal.aborted) {
      this.woken = false;
      return;
    }
    const cut = new AbortController();
    const stop = () => cut.abort();
    this.interrupt = stop;
    signal.addEventListener("abort", stop, { once: true });
    try {
      await clock.sleep(ms, cut.signal).catch(() => {});
    } finally {
      signal.removeEventListener("abort", stop);
      this.interrupt = undefined;
      this.woken = false;
    }
  }
}
