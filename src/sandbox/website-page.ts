// One page of the website list: reading the query (invalid values fall back to the defaults),
// filtering and slicing, and the two page shapes seen in the wild (Laravel resource, bare paginator).
import type { ResolvedOptions } from "./options.js";
import type { WebsiteRecord } from "./records.js";
import { type SortBy, type SortOrder, sortedWebsites, type WebsiteStore } from "./website-store.js";
import { websiteView } from "./website-view.js";

const PER_PAGE = [10, 25, 50, 100] as const;

interface ListQuery {
  search: string | undefined;
  searchBy: "domain";
  sortBy: SortBy;
  sort: SortOrder;
  perPage: number;
  page: number;
}

/** `perPageCap`: an installation configured with smaller pages answers at most that many. */
export function readListQuery(query: URLSearchParams, perPageCap?: number): ListQuery {
  const perPage = Number(query.get("per_page"));
  const chosen = PER_PAGE.find((allowed) => allowed === perPage) ?? 10;
  const page = Number(query.get("page"));
  return {
    search: query.get("search") || undefined,
    searchBy: "domain",
    sortBy: query.get("sort_by") === "domain" ? "domain" : "id",
    sort: query.get("sort") === "asc" ? "asc" : "desc",
    perPage: perPageCap === undefined ? chosen : Math.min(chosen, perPageCap),
    page: Number.isInteger(page) && page >= 1 ? page : 1,
  };
}

function matching(store: WebsiteStore, q: ListQuery): readonly WebsiteRecord[] {
  const all = sortedWebsites(store, q.sortBy, q.sort);
  if (!q.search) return all;
  const needle = q.search.toLowerCase();
  return all.filter((record) => record.domain.includes(needle));
}

/** Page links keep the list parameters, page last, as Laravel's paginator with appends() writes them. */
function pageUrl(path: string, q: ListQuery, page: number): string {
  const params = new URLSearchParams();
  if (q.search) params.set("search", q.search);
  params.set("search_by", q.searchBy);
  params.set("sort_by", q.sortBy);
  params.set("sort", q.sort);
  params.set("per_page", String(q.perPage));
  params.set("page", String(page));
  return `${path}?${params.toString()}`;
}

export function websitePage(
  store: WebsiteStore,
  query: URLSearchParams,
  path: string,
  options: ResolvedOptions,
) {
  const q = readListQuery(query, options.perPageCap);
  const rows = matching(store, q);
  const total = rows.length;
  const lastPage = Math.max(1, Math.ceil(total / q.perPage));
  const start = (q.page - 1) * q.perPage;
  const data = rows.slice(start, start + q.perPage).map((record) => websiteView(record, options.stringInts));
  const from = data.length > 0 ? start + 1 : null;
  const to = data.length > 0 ? start + data.length : null;
  const first = pageUrl(path, q, 1);
  const last = pageUrl(path, q, lastPage);
  const prev = q.page > 1 ? pageUrl(path, q, q.page - 1) : null;
  const next = q.page < lastPage ? pageUrl(path, q, q.page + 1) : null;
  if (options.pageShape === "bare") {
    return {
      current_page: q.page,
      data,
      first_page_url: first,
      from,
      last_page: lastPage,
      last_page_url: last,
      next_page_url: next,
      path,
      per_page: q.perPage,
      prev_page_url: prev,
      to,
      total,
    };
  }
  return {
    data,
    links: { first, last, prev, next },
    meta: { current_page: q.page, from, last_page: lastPage, path, per_page: q.perPage, to, total },
    status: 200,
  };
}
