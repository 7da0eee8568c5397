// Time as a dependency: code asks the clock passed to it, so tests can move time instead of sleeping.
import { setTimeout as delay } from "node:timers/promises";

export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => {
    if (ms <= 0) return Promise.resolve();
    // A plain timer where nothing can cancel the wait: a run sleeps between verify reads tens of thousands of
    // times, and timers/promises costs half as much again per sleep.
    if (!signal) return new Promise((resolve) => setTimeout(resolve, ms));
    return delay(ms, undefined, { signal });
  },
};
