import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);

// dist/clock.js
import { setTimeout as delay } from "node:timers/promises";
var systemClock = {
  now: () => Date.now(),
  sleep: async (ms, signal) => {
    if (ms <= 0)
      return;
    await delay(ms, void 0, signal ? { signal } : void 0);
  }
};

// dist/http/backoff.js
function backoffDelay(attempt, policy, random = Math.random) {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}
function parseRetryAfter(value, now) {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === void 0 || text.trim() === "")
    return void 0;
  if (/^\d+(\.\d+)?$/.test(text.trim()))
    return Math.round(Number(text) * 1e3);
  const date = Date.parse(text);
  return Number.isNaN(date) ? void 0 : Math.max(0, date - now);
}

export {
  systemClock,
  backoffDelay,
  parseRetryAfter
};
