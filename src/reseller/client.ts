// The data reseller API (seed §4.1): networks, plans, buying data, verifying a transaction.
import type { CallInfo } from "../http/errors.js";
import { ClientError, MalformedResponseError } from "../http/errors.js";
import { providerMessage } from "../http/message.js";
import { parseAnswer } from "../http/parse.js";
import type { RequestSpec, ServiceClient } from "../http/service-client.js";
import {
  classifyStatus,
  type FinalityClass,
  type Network,
  networksResponseSchema,
  type Plan,
  type PurchaseResult,
  plansResponseSchema,
  purchaseResultSchema,
  type Transaction,
  transactionResponseSchema,
} from "./schemas.js";

export interface BuyDataRequest {
  network_id: string;
  plan_id: string;
  phone_number: string;
  ported_number?: boolean;
}

/** The provider's answer to a purchase that it did answer with 2xx: accepted with a reference, or refused. */
export type PurchaseAnswer =
  | { accepted: true; reference: string; result: PurchaseResult; raw: unknown }
  | { accepted: false; message: string; result: PurchaseResult; raw: unknown };

export type Verification =
  | { found: false; raw: unknown }
  | { found: true; status: FinalityClass; rawStatus: string; transaction: Transaction; raw: unknown };

export class ResellerClient {
  constructor(readonly http: ServiceClient) {}

  async listNetworks(signal?: AbortSignal): Promise<Network[]> {
    const spec: RequestSpec = { endpoint: "networks", method: "GET", path: "/public/api/networks", signal };
    const response = await this.http.request(spec);
    return parseAnswer(networksResponseSchema, response, this.call(spec)).data.networks;
  }

  async listPlans(networkId: string, signal?: AbortSignal): Promise<Plan[]> {
    const path = `/public/api/plans/${encodeURIComponent(networkId)}`;
    const spec: RequestSpec = { endpoint: "plans", method: "GET", path, signal };
    const response = await this.http.request(spec);
    return parseAnswer(plansResponseSchema, response, this.call(spec)).data.plans;
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
    const response = await this.http.request(spec);
    const result = parseAnswer(purchaseResultSchema, response, this.call(spec));
    const reference = result.data?.reference;
    if (result.success && reference) return { accepted: true, reference, result, raw: response.body };
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
  async verifyTransaction(reference: string, signal?: AbortSignal): Promise<Verification> {
    const path = `/public/api/transaction/${encodeURIComponent(reference)}`;
    const spec: RequestSpec = { endpoint: "transaction", method: "GET", path, signal };
    try {
      const response = await this.http.request(spec);
      const transaction = parseAnswer(transactionResponseSchema, response, this.call(spec)).data.transaction;
      return {
        found: true,
        status: classifyStatus(transaction.status),
        rawStatus: transaction.status,
        transaction,
        raw: response.body,
      };
    } catch (error) {
      if (error instanceof ClientError && error.status === 404) return { found: false, raw: error.body };
      throw error;
    }
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private call(spec: RequestSpec): CallInfo {
    return { service: "reseller", endpoint: spec.endpoint, method: spec.method, path: spec.path };
  }
}
