// Retry delays: exponential backoff with full jitter, and the service's own Retry-After when it gives one.
import { RateLimitedError } from "./errors.js";

export interface BackoffPolicy {
  baseDelayMs: number;
  maxDelayMs: number;
}

/** Full jitter: a uniform draw in [0, min(max, base·2^attempt)] (attempt counts from 0). */
export function backoffDelay(
  attempt: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}

/**
 * The longest wait a service's Retry-After (or X-RateLimit-Reset) is honoured for: a call asked to wait longer is
 * not tried again (it fails as rate limited, saying the wait asked), and no call waits past it for the service.
 * A throttle's window is a minute; a hostile or broken answer asking for a day or a year held every call for it.
 */
export const MAX_RETRY_AFTER_MS = 15 * 60_000;

/** A 429 whose Retry-After asks for longer than topsync waits: not tried again. */
export function waitsTooLong(error: unknown): boolean {
  return (
    error instanceof RateLimitedError &&
    error.retryAfterMs !== undefined &&
    error.retryAfterMs > MAX_RETRY_AFTER_MS
  );
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(text.trim())) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
