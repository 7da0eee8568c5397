// The heart of money safety (money moves at most once; an unknown outcome is never retried): what a purchase POST's outcome means for the ledger. Pure.
import { AuthError, type HttpError, isHttpError, RateLimitedError } from "../http/errors.js";
import type { PurchaseAnswer } from "../reseller/client.js";

/** What the POST's outcome means, with the provider's raw answer (its body, when there was one) for the event log. */
export type PurchaseOutcome = { response?: unknown } & (
  | { kind: "submitted"; reference: string; walletBalance?: string; charged?: string }
  | { kind: "failed"; message: string; stopRun: boolean }
  | { kind: "retry"; retryAfterMs?: number; why: string }
  | { kind: "in_doubt"; why: string }
);

export function classifyPurchase(result: { answer: PurchaseAnswer } | { error: unknown }): PurchaseOutcome {
  if ("answer" in result) {
    const { answer } = result;
    if (answer.accepted) {
      return {
        kind: "submitted",
        reference: answer.reference,
        walletBalance: answer.walletBalance?.toFixed(2),
        charged: answer.charged?.toFixed(2),
        response: answer.raw,
      };
    }
    return {
      kind: "failed",
      message: `the reseller refused the purchase: ${answer.message}`,
      stopRun: false,
      response: answer.raw,
    };
  }
  const { error } = result;
  if (!isHttpError(error)) {
    // A bug of ours after the request may have been written: never assume it was not sent.
    return {
      kind: "in_doubt",
      why: `unexpected error during the purchase call: ${String((error as Error)?.message ?? error)}`,
    };
  }
  const outcome = classifyHttpError(error);
  return error.body === undefined ? outcome : { ...outcome, response: error.body };
}

function classifyHttpError(error: HttpError): PurchaseOutcome {
  if (error.outcome === "not_sent") return { kind: "retry", why: `not sent: ${error.message}` };
  if (error instanceof RateLimitedError)
    return { kind: "retry", retryAfterMs: error.retryAfterMs, why: error.message };
  if (error instanceof AuthError) return { kind: "failed", message: error.message, stopRun: true };
  if (error.outcome === "rejected") return { kind: "failed", message: error.message, stopRun: false };
  return { kind: "in_doubt", why: `${error.code}: ${error.message}` };
}
