// The website analytics API (seed §4.2): list every page, read, create, update, delete. Bodies form-encoded.
import type { CallInfo } from "../http/errors.js";
import { MalformedResponseError } from "../http/errors.js";
import { parseAnswer } from "../http/parse.js";
import type { RequestSpec, ServiceClient } from "../http/service-client.js";
import {
  deleteResultSchema,
  type RemoteWebsite,
  websiteEnvelopeSchema,
  websitePageSchema,
  websiteSchema,
} from "./schemas.js";

export const PER_PAGE = 100;
/** No account holds more; a listing that goes on past this is a paging bug on one side or the other. */
const MAX_PAGES = 10_000;

/** What topsync sends for a website; lists go one entry per line. */
export interface WebsiteInput {
  domain?: string;
  privacy?: 0 | 1 | 2;
  password?: string;
  email?: 0 | 1;
  exclude_bots?: 0 | 1;
  exclude_params?: string[];
  exclude_ips?: string[];
}

export interface WebsiteListing {
  websites: RemoteWebsite[];
  pages: number;
}

export class AnalyticsClient {
  constructor(readonly http: ServiceClient) {}

  /** Every website, page by page in a stable order (id ascending), until a short or empty page. */
  async listWebsites(
    options: { signal?: AbortSignal; onPage?: (page: number) => void } = {},
  ): Promise<WebsiteListing> {
    const websites: RemoteWebsite[] = [];
    let lastFirstId: number | undefined;
    for (let page = 1; page <= MAX_PAGES; page++) {
      const spec: RequestSpec = {
        endpoint: "websites.list",
        method: "GET",
        path: "/api/v1/websites",
        query: { per_page: PER_PAGE, sort_by: "id", sort: "asc", page },
        signal: options.signal,
      };
      const response = await this.http.request(spec);
      const parsed = parseAnswer(websitePageSchema, response, this.call(spec));
      const records = parsed.data.map((record, index) => this.record(record, spec, response.status, index));
      options.onPage?.(page);
      if (records.length > 0 && records[0]!.id === lastFirstId) {
        throw new MalformedResponseError(
          this.call(spec),
          response.status,
          `page ${page} repeats page ${page - 1}`,
          null,
        );
      }
      lastFirstId = records[0]?.id;
      websites.push(...records);
      const onLastPage = parsed.lastPage !== undefined && page >= parsed.lastPage;
      if (records.length < PER_PAGE || onLastPage) return { websites, pages: page };
    }
    throw new MalformedResponseError(
      { service: "analytics", endpoint: "websites.list", method: "GET", path: "/api/v1/websites" },
      200,
      `the listing did not end after ${MAX_PAGES} pages`,
      null,
    );
  }

  async getWebsite(id: number): Promise<RemoteWebsite> {
    const spec: RequestSpec = { endpoint: "websites.get", method: "GET", path: `/api/v1/websites/${id}` };
    const response = await this.http.request(spec);
    return parseAnswer(websiteEnvelopeSchema, response, this.call(spec)).data;
  }

  async createWebsite(input: WebsiteInput & { domain: string }): Promise<RemoteWebsite> {
    const spec: RequestSpec = {
      endpoint: "websites.create",
      method: "POST",
      path: "/api/v1/websites",
      form: toForm(input),
    };
    const response = await this.http.request(spec);
    return parseAnswer(websiteEnvelopeSchema, response, this.call(spec)).data;
  }

  /** Sends only the given fields (the service leaves the others as they are); the domain cannot change. */
  async updateWebsite(id: number, input: Omit<WebsiteInput, "domain">): Promise<RemoteWebsite> {
    const path = `/api/v1/websites/${id}`;
    const spec: RequestSpec = { endpoint: "websites.update", method: "PUT", path, form: toForm(input) };
    const response = await this.http.request(spec);
    return parseAnswer(websiteEnvelopeSchema, response, this.call(spec)).data;
  }

  async deleteWebsite(id: number): Promise<void> {
    const spec: RequestSpec = {
      endpoint: "websites.delete",
      method: "DELETE",
      path: `/api/v1/websites/${id}`,
    };
    const response = await this.http.request(spec);
    parseAnswer(deleteResultSchema, response, this.call(spec));
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private record(record: unknown, spec: RequestSpec, status: number, index: number): RemoteWebsite {
    const result = websiteSchema.safeParse(record);
    if (result.success) return result.data;
    const issue = result.error.issues[0];
    const raw = record as { id?: unknown; domain?: unknown };
    const name = typeof raw?.domain === "string" ? raw.domain : `#${String(raw?.id ?? index)}`;
    const field = issue?.path.join(".") || "(record)";
    throw new MalformedResponseError(
      this.call(spec),
      status,
      `website ${name} in the listing is not readable: ${field}: ${issue?.message ?? "unexpected shape"}`,
      record,
    );
  }

  private call(spec: RequestSpec): CallInfo {
    return { service: "analytics", endpoint: spec.endpoint, method: spec.method, path: spec.path };
  }
}

function toForm(input: WebsiteInput): Record<string, string> {
  const form: Record<string, string> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    form[key] = Array.isArray(value) ? value.join("\n") : String(value);
  }
  return form;
}
