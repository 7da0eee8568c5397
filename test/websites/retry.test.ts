import { describe, expect, it } from "vitest";
import {
  type CallInfo,
  ClientError,
  NoAnswerError,
  NotSentError,
  RateLimitedError,
  ServerError,
} from "../../src/http/errors.js";
import { isRetryable, withRetries } from "../../src/websites/retry.js";
import { recordingClock } from "../helpers/clients.js";

const CALL: CallInfo = {
  service: "analytics",
  endpoint: "websites.create",
  method: "POST",
  path: "/api/v1/websites",
};
const RETRY = { max_attempts: 4, base_delay: 100, max_delay: 1000 };

/** A call that fails with the given errors in turn, then answers "done". */
function failing(...errors: Error[]) {
  let calls = 0;
  const call = async () => {
    calls += 1;
    const error = errors.shift();
    if (error) throw error;
    return "done";
  };
  return { call, calls: () => calls };
}

describe("per-website retries", () => {
  it("try again after a request certainly not sent, with backoff", async () => {
    const clock = recordingClock();
    const attempt = failing(new NotSentError(CALL, "ECONNREFUSED"), new NotSentError(CALL, "ECONNREFUSED"));
    await expect(withRetries("create", attempt.call, { retry: RETRY, clock, random: () => 1 })).resolves.toBe(
      "done",
    );
    expect(attempt.calls()).toBe(3);
    expect(clock.slept).toEqual([100, 200]);
  });

  it("wait exactly a 429's Retry-After when given", async () => {
    const clock = recordingClock();
    const attempt = failing(new RateLimitedError(CALL, 3000, {}));
    await withRetries("update", attempt.call, { retry: RETRY, clock, random: () => 1 });
    expect(clock.slept).toEqual([3000]);
  });

  it("stop after max_attempts and throw the last error", async () => {
    const clock = recordingClock();
    const errors = Array.from({ length: 5 }, () => new RateLimitedError(CALL, undefined, {}));
    const attempt = failing(...errors);
    await expect(withRetries("delete", attempt.call, { retry: RETRY, clock })).rejects.toBeInstanceOf(
      RateLimitedError,
    );
    expect(attempt.calls()).toBe(4);
  });

  it("repeat an update or delete of unknown outcome (idempotent), never a create", () => {
    const unknown = [
      new ServerError(CALL, 500, "Server Error", {}),
      new NoAnswerError(CALL, "reset", "HTTP_CONNECTION_LOST"),
    ];
    for (const error of unknown) {
      expect(isRetryable(error, "update")).toBe(true);
      expect(isRetryable(error, "delete")).toBe(true);
      expect(isRetryable(error, "create")).toBe(false);
    }
  });

  it("never repeat what the service refused, nor a cancelled call", () => {
    expect(isRetryable(new ClientError(CALL, 422, "invalid", {}), "update")).toBe(false);
    expect(isRetryable(new NoAnswerError(CALL, "cancelled", "HTTP_ABORTED"), "update")).toBe(false);
    expect(isRetryable(new Error("boom"), "update")).toBe(false);
  });
});
