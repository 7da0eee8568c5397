// The reseller's buy-data endpoint: validation in the order the real service applies it, then one debit
// and one transaction whose final status is drawn now from the seeded outcome stream.

import { networkOfNumber } from "../reseller/prefixes.js";
import { findPlan, pricedPlan, type SandboxPlan } from "./catalogue.js";
import { type Fields, textField } from "./http-util.js";
import { toKobo } from "./kobo.js";
import { type FieldErrors, summarise } from "./laravel-errors.js";
import { answerText } from "./lies.js";
import { notifyTransaction } from "./notify.js";
import type { Call, Reply } from "./route.js";
import type { SandboxState } from "./state.js";
import { isoMicros } from "./time.js";
import { type FinalStatus, newReference, purchaseResult, type Transaction } from "./transactions.js";
import { debitWallet } from "./wallet.js";

const REQUIRED = ["network_id", "plan_id", "phone_number"] as const;

/** A refusal; the HTTP status and the body's `code` differ for a wrong-network number (200 vs 400). */
function failed(
  httpStatus: number,
  code: number,
  message: string,
  extra: Record<string, unknown> = {},
): Reply {
  return { status: httpStatus, body: { success: false, code, status: "failed", message, ...extra } };
}

function validationErrors(fields: Fields): FieldErrors {
  const errors: FieldErrors = {};
  for (const name of REQUIRED) {
    if (textField(fields, name) == null) errors[name] = [`The ${name.replace("_", " ")} field is required.`];
  }
  const phone = textField(fields, "phone_number");
  if (phone != null && !/^0\d{10}$/.test(phone)) {
    errors.phone_number = ["The phone number must be 11 digits starting with 0."];
  }
  return errors;
}

function isPorted(fields: Fields): boolean {
  const value = fields.ported_number;
  return value === true || value === 1 || ["true", "1", "yes", "on"].includes(String(value).toLowerCase());
}

function drawOutcome(state: SandboxState): FinalStatus {
  const draw = state.outcomes();
  if (draw < state.options.failRate) return "failed";
  if (draw < state.options.failRate + state.options.reverseRate) return "reversed";
  return "success";
}

function accept(state: SandboxState, networkId: string, plan: SandboxPlan, phone: string): Transaction {
  const { verifyNotFoundMs, verifyPendingMs, verifyLagJitter } = state.options;
  const now = state.clock().getTime();
  const stretch = 1 + verifyLagJitter * (2 * state.lags() - 1);
  const amountKobo = Math.round(toKobo(plan.price) * state.options.overchargeFactor);
  const tx: Transaction = {
    reference: newReference(state.transactions, state.options.lies.referenceAsNumber === true),
    networkId,
    plan,
    phone,
    amountKobo,
    initialKobo: state.walletKobo,
    finalKobo: state.walletKobo - amountKobo,
    createdAt: isoMicros(state.clock()),
    finalStatus: drawOutcome(state),
    verifyCalls: 0,
    refunded: false,
    notified: false,
    readsSinceNotified: 0,
    knownAt: now + Math.round(verifyNotFoundMs * stretch),
    settledAt: now + Math.round((verifyNotFoundMs + verifyPendingMs) * stretch),
  };
  state.transactions.set(tx.reference, tx);
  debitWallet(state, tx);
  return tx;
}

export function buyData({ state, fields }: Call): Reply {
  const errors = validationErrors(fields);
  if (Object.keys(errors).length > 0) return failed(422, 422, summarise(errors), { errors });
  const networkId = textField(fields, "network_id")!;
  const phone = textField(fields, "phone_number")!;
  const listed = findPlan(textField(fields, "plan_id")!);
  if (!listed || listed.network.code !== networkId) return failed(400, 400, "Invalid plan.");
  const plan = pricedPlan(listed, state.options.planPrices);
  const numberNetwork = networkOfNumber(phone);
  if (numberNetwork !== undefined && numberNetwork !== plan.network.name && !isPorted(fields)) {
    return failed(200, 400, `Number ${phone} is not a valid ${plan.network.name} number.`);
  }
  if (state.walletKobo < toKobo(plan.price)) return failed(402, 402, "Insufficient balance.");
  const tx = accept(state, networkId, plan, phone);
  notifyTransaction(state, tx);
  const body = purchaseResult(tx);
  if (state.options.lies.amount !== undefined) body.data.amount = state.options.lies.amount;
  if (state.options.lies.trueResponse !== undefined)
    body.data.true_response = state.options.lies.trueResponse;
  return { status: 200, body, text: answerText(state.options.lies, body) };
}
