// Per-website retries of a write: the ServiceClient sends writes once, so a 429 (after its Retry-After),
// a request certainly not sent, and — for the idempotent update and delete — an unknown outcome are tried again.
import type { Clock } from "../clock.js";
import { backoffDelay, waitsTooLong } from "../http/backoff.js";
import { HttpError, RateLimitedError } from "../http/errors.js";

export interface RetryPolicy {
  max_attempts: number;
  base_delay: number;
  max_delay: number;
}

export interface RetryContext {
  retry: RetryPolicy;
  clock: Clock;
  random?: () => number;
  signal?: AbortSignal;
}

export type WriteAction = "create" | "update" | "delete";

/** A create whose outcome is unknown is not repeated: the domain may already exist (the next pass sees). */
export function isRetryable(error: unknown, action: WriteAction): boolean {
  if (!(error instanceof HttpError)) return false;
  if (error instanceof RateLimitedError || error.outcome === "not_sent") return true;
  return action !== "create" && error.outcome === "unknown" && error.code !== "HTTP_ABORTED";
}

export async function withRetries<T>(
  action: WriteAction,
  call: () => Promise<T>,
  context: RetryContext,
): Promise<T> {
  const policy = { baseDelayMs: context.retry.base_delay, maxDelayMs: context.retry.max_delay };
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt + 1 >= context.retry.max_attempts || !isRetryable(error, action) || waitsTooLong(error))
        throw error;
      const delay =
        error instanceof RateLimitedError && error.retryAfterMs !== undefined
          ? error.retryAfterMs
          : backoffDelay(attempt, policy, context.random);
      await context.clock.sleep(delay, context.signal);
    }
  }
}
