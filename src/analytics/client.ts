// The website analytics API (/api/v1/websites): list every page, read, create, update, delete. Bodies form-encoded.
import { setMaxListeners } from "node:events";
import type { CallInfo } from "../http/errors.js";
import { HttpError, MalformedResponseError } from "../http/errors.js";
import { providerMessage } from "../http/message.js";
import { parseAnswer } from "../http/parse.js";
import type { RequestSpec, ServiceClient, ServiceResponse } from "../http/service-client.js";
import { EndlessListing, ListingTracker } from "./listing.js";
import {
  deleteResultSchema,
  type RemoteWebsite,
  singleWebsiteSchema,
  websitePageSchema,
  websiteSchema,
} from "./schemas.js";

export { MAX_PAGES } from "./listing.js";
export const PER_PAGE = 100;

const LIST_CALL: CallInfo = {
  service: "analytics",
  endpoint: "websites.list",
  method: "GET",
  path: "/api/v1/websites",
};

/** The listing would never end: a page repeated, last_page running away, or past the page cap. */
export class EndlessListingError extends HttpError {
  constructor(detail: string) {
    super("LISTING_ENDLESS", "unknown", LIST_CALL, `the website listing does not end: ${detail}`);
  }
}

/** The pages disagreed with each other or with the service's total (see WebsiteListing.problem). */
export class IncompleteListingError extends HttpError {
  constructor(detail: string) {
    super("LISTING_INCOMPLETE", "unknown", LIST_CALL, `the website listing is incomplete: ${detail}`);
  }
}

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
  /** False when the pages disagreed with each other, or the count read is not the service's total. */
  complete: boolean;
  /** Why the listing is incomplete. */
  problem?: string;
}

/** How far a listing has got, after each page: `lastPage` as the service last said it, when it says. */
export interface ListingProgress {
  page: number;
  lastPage?: number;
  websites: number;
}

export interface ListingOptions {
  signal?: AbortSignal;
  /** Told after each page is read. */
  onPage?: (progress: ListingProgress) => void;
}

interface ListedPage {
  parsed: ReturnType<typeof websitePageSchema.parse>;
  records: RemoteWebsite[];
}

export class AnalyticsClient {
  constructor(readonly http: ServiceClient) {}

  /** Every website, and nothing less: an incomplete listing is an IncompleteListingError. */
  async listWebsites(options: ListingOptions = {}): Promise<WebsiteListing> {
    const listing = await this.readWebsites(options);
    if (!listing.complete) throw new IncompleteListingError(listing.problem ?? "the pages disagreed");
    return listing;
  }

  /**
   * Every page in a stable order (id ascending), following last_page, for a caller that can act on a partial
   * picture with care (the reconciler): `complete` says whether it may. A listing that would never end throws.
   * Pages are taken in order, but once the pages say how many there are, the next ones are asked for ahead, as
   * many at once as the client's connections less the one awaited (each still waits for the rate limit): on a
   * fast service a listing of 100 pages waited out 100 round trips one after another.
   */
  async readWebsites(options: ListingOptions = {}): Promise<WebsiteListing> {
    const websites: RemoteWebsite[] = [];
    const tracker = new ListingTracker(PER_PAGE);
    // Pages asked for ahead and not needed after all (the listing ended sooner) are cancelled. Every page in flight
    // listens on this one signal (in the rate limit's wait and in its call), as many as the connections.
    const reading = new AbortController();
    setMaxListeners(0, reading.signal);
    const cancel = () => reading.abort(options.signal?.reason);
    if (options.signal?.aborted) cancel();
    else options.signal?.addEventListener("abort", cancel, { once: true });
    const pending = new Map<number, Promise<ListedPage>>();
    const ask = (page: number) => {
      let answer = pending.get(page);
      if (!answer) {
        answer = this.listPage(page, reading.signal);
        answer.catch(() => {}); // awaited in its turn; a page not reached leaves no unhandled rejection
        pending.set(page, answer);
      }
      return answer;
    };
    try {
      for (let page = 1; ; page++) {
        const { parsed, records } = await ask(page);
        pending.delete(page);
        let verdict: ReturnType<ListingTracker["take"]>;
        try {
          verdict = tracker.take({ ...parsed, page, ids: records.map((record) => record.id) });
        } catch (error) {
          if (error instanceof EndlessListing) throw new EndlessListingError(error.message);
          throw error;
        }
        for (const index of verdict.fresh) websites.push(records[index]!);
        options.onPage?.({ page, lastPage: parsed.lastPage, websites: websites.length });
        if (!verdict.next) {
          const problem = tracker.problem();
          return { websites, pages: page, complete: problem === undefined, ...(problem ? { problem } : {}) };
        }
        const last = Math.min(
          tracker.expectedLastPage ?? page + 1,
          page + Math.max(1, this.http.concurrency - 1),
        );
        for (let next = page + 1; next <= last; next++) ask(next);
      }
    } finally {
      if (pending.size > 0) reading.abort();
      options.signal?.removeEventListener("abort", cancel);
    }
  }

  /**
   * One read of the first page, for a check that the key works (`topsync doctor`): one request however many
   * websites there are. Says how many the service holds, when it says.
   */
  async probe(signal?: AbortSignal): Promise<{ total: number | undefined }> {
    const spec: RequestSpec = {
      endpoint: "websites.list",
      method: "GET",
      path: LIST_CALL.path,
      query: { per_page: 10, page: 1 },
      signal,
    };
    const parsed = parseAnswer(websitePageSchema, await this.http.request(spec), this.call(spec));
    return { total: parsed.total };
  }

  /** One page of the listing, its records read. */
  private async listPage(page: number, signal: AbortSignal): Promise<ListedPage> {
    const spec: RequestSpec = {
      endpoint: "websites.list",
      method: "GET",
      path: LIST_CALL.path,
      query: { per_page: PER_PAGE, sort_by: "id", sort: "asc", page },
      signal,
    };
    const response = await this.http.request(spec);
    refuseErrorBody(response, this.call(spec));
    const parsed = parseAnswer(websitePageSchema, response, this.call(spec));
    const records = parsed.data.map((record, index) => this.record(record, spec, response.status, index));
    return { parsed, records };
  }

  async getWebsite(id: number): Promise<RemoteWebsite> {
    const spec: RequestSpec = { endpoint: "websites.get", method: "GET", path: `/api/v1/websites/${id}` };
    return this.single(await this.http.request(spec), spec);
  }

  async createWebsite(input: WebsiteInput & { domain: string }): Promise<RemoteWebsite> {
    const spec: RequestSpec = {
      endpoint: "websites.create",
      method: "POST",
      path: "/api/v1/websites",
      form: toForm(input),
    };
    return this.single(await this.http.request(spec), spec);
  }

  /** Sends only the given fields (the service leaves the others as they are); the domain cannot change. */
  async updateWebsite(id: number, input: Omit<WebsiteInput, "domain">): Promise<RemoteWebsite> {
    const path = `/api/v1/websites/${id}`;
    const spec: RequestSpec = { endpoint: "websites.update", method: "PUT", path, form: toForm(input) };
    return this.single(await this.http.request(spec), spec);
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

  private single(response: ServiceResponse, spec: RequestSpec): RemoteWebsite {
    return parseAnswer(singleWebsiteSchema(response.body), response, this.call(spec));
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

/**
 * A page answered 2xx whose body says it failed (`"status": 500` beside an empty `data`, as a broken build or a
 * proxy's error page may answer) is no listing: read as one, it would be an empty account — every declared website
 * created again and every owned one forgotten.
 */
function refuseErrorBody(response: ServiceResponse, call: CallInfo): void {
  const body = response.body as { status?: unknown } | null;
  if (typeof body !== "object" || body === null || !("status" in body)) return;
  const status = typeof body.status === "string" ? Number(body.status) : body.status;
  if (typeof status !== "number" || !Number.isFinite(status) || (status >= 200 && status < 300)) return;
  throw new MalformedResponseError(
    call,
    response.status,
    `the answer says it failed (status ${String(body.status)} in its body): ${providerMessage(body, "")}`,
    response.body,
  );
}

function toForm(input: WebsiteInput): Record<string, string> {
  const form: Record<string, string> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    form[key] = Array.isArray(value) ? value.join("\n") : String(value);
  }
  return form;
}
