// Time as a dependency: code asks the clock passed to it, so tests can move time instead of sleeping.
import { setTimeout as delay } from "node:timers/promises";

export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: async (ms, signal) => {
    if (ms <= 0) return;
    await delay(ms, undefined, signal ? { signal } : undefined);
  },
};
