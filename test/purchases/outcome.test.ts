import { describe, expect, it } from "vitest";
import {
  AuthError,
  ClientError,
  MalformedResponseError,
  NoAnswerError,
  NotSentError,
  RateLimitedError,
  ServerError,
} from "../../src/http/errors.js";
import { classifyPurchase } from "../../src/purchases/outcome.js";
import type { PurchaseAnswer } from "../../src/reseller/client.js";

const call = { service: "reseller" as const, endpoint: "data", method: "POST", path: "/public/api/data" };
const refused: PurchaseAnswer = {
  accepted: false,
  message: "Number is not valid",
  result: { success: false },
  raw: {},
};

describe("purchase outcome classification", () => {
  it.each([
    ["connection refused", { error: new NotSentError(call, "ECONNREFUSED") }, "retry"],
    ["429", { error: new RateLimitedError(call, 3000, {}) }, "retry"],
    ["401", { error: new AuthError(call, 401, {}) }, "failed"],
    ["422", { error: new ClientError(call, 422, "bad", {}) }, "failed"],
    ["2xx success:false", { answer: refused }, "failed"],
    ["500", { error: new ServerError(call, 500, "oops", {}) }, "in_doubt"],
    ["timeout", { error: new NoAnswerError(call, "no answer", "HTTP_TIMEOUT") }, "in_doubt"],
    ["reset", { error: new NoAnswerError(call, "lost", "HTTP_CONNECTION_LOST") }, "in_doubt"],
    ["malformed 2xx", { error: new MalformedResponseError(call, 200, "not JSON", "") }, "in_doubt"],
    ["a bug of ours", { error: new TypeError("x is undefined") }, "in_doubt"],
  ] as const)("%s → %s", (_name, result, kind) => {
    expect(classifyPurchase(result as never).kind).toBe(kind);
  });

  it("a 401 stops the run; a 429 carries its delay", () => {
    expect(classifyPurchase({ error: new AuthError(call, 403, {}) })).toMatchObject({
      kind: "failed",
      stopRun: true,
    });
    expect(classifyPurchase({ error: new RateLimitedError(call, 3000, {}) })).toMatchObject({
      kind: "retry",
      retryAfterMs: 3000,
    });
  });
});
