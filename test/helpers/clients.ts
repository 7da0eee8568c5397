// API clients pointed at a sandbox, with small timeouts and retry delays so fault tests run quickly.
import { expect } from "vitest";
import { AnalyticsClient } from "../../src/analytics/client.js";
import type { Clock } from "../../src/clock.js";
import { HttpError } from "../../src/http/errors.js";
import { ServiceClient, type ServiceClientOptions } from "../../src/http/service-client.js";
import { ResellerClient } from "../../src/reseller/client.js";
import type { Sandbox } from "../../src/sandbox/index.js";

export const FAST: Omit<ServiceClientOptions, "service" | "baseUrl" | "apiKey"> = {
  timeout: { connect: 1000, headers: 1000, body: 1000 },
  concurrency: 8,
  rateLimit: 10_000,
  retry: { max_attempts: 3, base_delay: 5, max_delay: 20 },
};

/**
 * A clock that really waits at most a few ms, recording the delays it was asked for; its time moves on by
 * every delay asked for, so whatever waits for a moment (a Retry-After) sees it come.
 */
export function recordingClock(onSleep?: (ms: number) => void): Clock & { slept: number[] } {
  const slept: number[] = [];
  let skipped = 0;
  return {
    slept,
    now: () => Date.now() + skipped,
    sleep: async (ms) => {
      slept.push(ms);
      skipped += Math.max(0, ms);
      onSleep?.(ms);
      await new Promise((resolve) => setTimeout(resolve, Math.min(ms, 5)));
    },
  };
}

export function resellerFor(
  sandbox: Pick<Sandbox, "resellerUrl" | "apiKey">,
  overrides: Partial<ServiceClientOptions> = {},
): ResellerClient {
  return new ResellerClient(
    new ServiceClient({
      service: "reseller",
      baseUrl: sandbox.resellerUrl,
      apiKey: sandbox.apiKey,
      ...FAST,
      ...overrides,
    }),
  );
}

export function analyticsFor(
  sandbox: Pick<Sandbox, "analyticsUrl" | "analyticsApiKey">,
  overrides: Partial<ServiceClientOptions> = {},
): AnalyticsClient {
  return new AnalyticsClient(
    new ServiceClient({
      service: "analytics",
      baseUrl: sandbox.analyticsUrl,
      apiKey: sandbox.analyticsApiKey,
      ...FAST,
      ...overrides,
    }),
  );
}

/** The HttpError a call fails with (the test fails if it succeeds or throws something else). */
export async function failureOf(promise: Promise<unknown>): Promise<HttpError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HttpError);
  return error as HttpError;
}
