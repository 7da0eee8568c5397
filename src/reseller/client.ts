// The data reseller API (docs/services.md): networks, plans, buying data, verifying a transaction.
import type { CallInfo } from "../http/errors.js";
import { MalformedResponseError } from "../http/errors.js";
import { providerMessage } from "../http/message.js";
import { parseAnswer } from "../http/parse.js";
import type { RequestSpec, ServiceClient } from "../http/service-client.js";
import type { Money } from "../money.js";
import { mark } from "../timings.js";
import { quickPurchaseResult, quickTransactionResponse } from "./quick-read.js";
import {
  classifyStatus,
  type FinalityClass,
  type Network,
  networksResponseSchema,
  type Plan,
  type PurchaseResult,
  plansResponseSchema,
  purchaseResultSchema,
  readPlanList,
  type Transaction,
  transactionResponseSchema,
  type UnusablePlan,
  visiblePhone,
} from "./schemas.js";

export interface BuyDataRequest {
  network_id: string;
  plan_id: string;
  phone_number: string;
  ported_number?: boolean;
}

/**
 * The provider's answer to a purchase that it did answer with 2xx: accepted with a reference, or refused. The
 * reference is the exact text the provider wrote; `charged` is the amount it says it took and `walletBalance`
 * the balance it reports, both within what the ledger holds (an answer with either out of range is unreadable).
 */
export type PurchaseAnswer =
  | {
      accepted: true;
      reference: string;
      charged?: Money;
      walletBalance?: Money;
      result: PurchaseResult;
      raw: unknown;
    }
  | { accepted: false; message: string; result: PurchaseResult; raw: unknown };

/**
 * One verification read, typed: the reference as written, the phone with its hidden digits as `*` (national
 * form, undefined when absent or unreadable), the amount, the transaction's status, and whether the envelope's
 * own `status` says success (false when it says `false`, whatever the transaction says).
 */
export type Verification =
  | { found: false; raw: unknown }
  | {
      found: true;
      status: FinalityClass;
      rawStatus: string;
      reference: string;
      phone: string | undefined;
      amount: Money | undefined;
      envelopeOk: boolean;
      transaction: Transaction;
      raw: unknown;
    };

/** One network's plan list: the plans that can be bought, and those listed that cannot, with the reason. */
export interface PlanList {
  plans: Plan[];
  unusable: UnusablePlan[];
}

export class ResellerClient {
  constructor(readonly http: ServiceClient) {}

  async listNetworks(signal?: AbortSignal): Promise<Network[]> {
    const spec: RequestSpec = { endpoint: "networks", method: "GET", path: "/public/api/networks", signal };
    const response = await this.http.request(spec);
    return parseAnswer(networksResponseSchema, response, this.call(spec)).data.networks;
  }

  /** The plans of a network that can be bought (see `readPlans` for those that cannot). */
  async listPlans(networkId: string, signal?: AbortSignal): Promise<Plan[]> {
    return (await this.readPlans(networkId, signal)).plans;
  }

  /** A network's plans, each read on its own: a plan with an unreadable or non-positive price is set aside. */
  async readPlans(networkId: string, signal?: AbortSignal): Promise<PlanList> {
    const path = `/public/api/plans/${encodeURIComponent(networkId)}`;
    const spec: RequestSpec = { endpoint: "plans", method: "GET", path, signal };
    const response = await this.http.request(spec);
    return readPlanList(parseAnswer(plansResponseSchema, response, this.call(spec)).data.plans, networkId);
  }

  /**
   * Sends one purchase, exactly once (never retried here). Throws an HttpError whose `outcome` says
   * whether money may have moved; a 2xx answer comes back as accepted or refused.
   */
  async buyData(request: BuyDataRequest): Promise<PurchaseAnswer> {
    const json: Record<string, unknown> = {
      network_id: request.network_id,
      plan_id: request.plan_id,
      phone_number: request.phone_number,
    };
    if (request.ported_number) json.ported_number = true;
    const spec: RequestSpec = { endpoint: "data", method: "POST", path: "/public/api/data", json };
    mark("post");
    const response = await this.http.request(spec);
    const result =
      quickPurchaseResult(response.body) ?? parseAnswer(purchaseResultSchema, response, this.call(spec));
    const reference = result.data?.reference;
    if (result.success && reference) {
      const { amount: charged, wallet_balance: walletBalance } = result.data ?? {};
      return { accepted: true, reference, charged, walletBalance, result, raw: response.body };
    }
    if (result.success) {
      // A success without a reference cannot be verified: the outcome is unknown, like any malformed answer.
      throw new MalformedResponseError(
        this.call(spec),
        response.status,
        "success without a reference",
        response.body,
      );
    }
    return { accepted: false, message: providerMessage(response.body, ""), result, raw: response.body };
  }

  /** One verification read; a 404 means "not known yet" (providers are eventually consistent). */
  /**
   * Reads a transaction. It waits at the rate limit in the lane of follow-ups, taking turns with purchases, or
   * before them when `urgent` (its verification's deadline is near).
   */
  async verifyTransaction(
    reference: string,
    options: { signal?: AbortSignal; urgent?: boolean } = {},
  ): Promise<Verification> {
    const path = `/public/api/transaction/${encodeURIComponent(reference)}`;
    const spec: RequestSpec = {
      endpoint: "transaction",
      method: "GET",
      path,
      signal: options.signal,
      expect: [404],
      lane: "follow",
      urgent: options.urgent,
    };
    const response = await this.http.request(spec);
    if (response.status === 404) return { found: false, raw: response.body };
    const answer =
      quickTransactionResponse(response.body) ??
      parseAnswer(transactionResponseSchema, response, this.call(spec));
    const { transaction } = answer.data;
    return {
      found: true,
      status: classifyStatus(transaction.status),
      rawStatus: transaction.status,
      reference: transaction.reference,
      phone: transaction.phone_number === undefined ? undefined : visiblePhone(transaction.phone_number),
      amount: transaction.amount,
      envelopeOk: answer.status !== false,
      transaction,
      raw: response.body,
    };
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private call(spec: RequestSpec): CallInfo {
    return { service: "reseller", endpoint: spec.endpoint, method: spec.method, path: spec.path };
  }
}
