// The analytics service's stored websites: ids, the unique-domain index, and sorted listing
// (sorted orders are cached until the next change, so paging through 10,000 websites stays cheap).
import type { WebsiteInput, WebsiteRecord } from "./records.js";

export type SortBy = "id" | "domain";
export type SortOrder = "asc" | "desc";

export interface WebsiteStore {
  byId: Map<number, WebsiteRecord>;
  byDomain: Map<string, number>;
  nextId: number;
  /** Bumped on every change; cached orders carry the version they were built at. */
  version: number;
  sorted: Map<string, { version: number; list: WebsiteRecord[] }>;
}

export function createWebsiteStore(): WebsiteStore {
  return { byId: new Map(), byDomain: new Map(), nextId: 1, version: 0, sorted: new Map() };
}

export function insertWebsite(store: WebsiteStore, input: WebsiteInput, at: string): WebsiteRecord {
  const record: WebsiteRecord = { id: store.nextId, ...input, favorite: 0, created_at: at, updated_at: at };
  store.nextId += 1;
  store.byId.set(record.id, record);
  store.byDomain.set(record.domain, record.id);
  store.version += 1;
  return record;
}

/** Applies the changes; `updated_at` moves only when a value actually changed, as Eloquent's save does. */
export function updateWebsite(
  store: WebsiteStore,
  record: WebsiteRecord,
  changes: Partial<Omit<WebsiteInput, "domain">>,
  at: string,
): WebsiteRecord {
  const entries = Object.entries(changes) as Array<[keyof WebsiteRecord, unknown]>;
  const dirty = entries.filter(([key, value]) => record[key] !== value);
  if (dirty.length === 0) return record;
  Object.assign(record, Object.fromEntries(dirty), { updated_at: at });
  store.version += 1;
  return record;
}

export function deleteWebsite(store: WebsiteStore, record: WebsiteRecord): void {
  store.byId.delete(record.id);
  store.byDomain.delete(record.domain);
  store.version += 1;
}

/** Every website in the order asked for; the array is shared with the cache, so callers must not change it. */
export function sortedWebsites(
  store: WebsiteStore,
  sortBy: SortBy,
  sort: SortOrder,
): readonly WebsiteRecord[] {
  const key = `${sortBy}:${sort}`;
  const cached = store.sorted.get(key);
  if (cached && cached.version === store.version) return cached.list;
  const list = [...store.byId.values()];
  if (sortBy === "domain") list.sort((a, b) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0));
  else list.sort((a, b) => a.id - b.id);
  if (sort === "desc") list.reverse();
  store.sorted.set(key, { version: store.version, list });
  return list;
}
