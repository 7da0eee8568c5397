// Laravel's `throttle:LIMIT,MINUTES` as the analytics API applies it: a window opens with the first request
// after the last one closed, every answer says the limit and what is left, and past the limit the answer is
// 429 "Too Many Attempts." with Retry-After (seconds) and X-RateLimit-Reset (epoch seconds).
import type { Reply } from "./route.js";
import type { SandboxState } from "./state.js";

export interface Throttled {
  /** The 429 to answer instead of the endpoint, when over the limit. */
  refused?: Reply;
  /** Headers every answer carries (none when the throttle is off). */
  headers: Record<string, string>;
}

/** Counts one request against the window; the state's window is replaced when the last one has closed. */
export function throttle(state: SandboxState, now: number): Throttled {
  const settings = state.options.throttle;
  if (!settings) return { headers: {} };
  const limit = settings.limit;
  if (state.throttle === undefined || now >= state.throttle.closesAt) {
    state.throttle = { hits: 0, closesAt: now + settings.windowSeconds * 1000 };
  }
  const window = state.throttle;
  if (window.hits >= limit) {
    const retryAfter = Math.max(1, Math.ceil((window.closesAt - now) / 1000));
    return {
      refused: { status: 429, body: { message: "Too Many Attempts." } },
      headers: {
        "x-ratelimit-limit": String(limit),
        "x-ratelimit-remaining": "0",
        "retry-after": String(retryAfter),
        "x-ratelimit-reset": String(Math.ceil(window.closesAt / 1000)),
      },
    };
  }
  window.hits += 1;
  return {
    headers: { "x-ratelimit-limit": String(limit), "x-ratelimit-remaining": String(limit - window.hits) },
  };
}
