// The website planner: declared websites, the remote listing and the ownership table in, a Plan out —
// create / update / delete / unmanaged / conflict / noop per normalised domain. Pure: no I/O.
import type { RemoteWebsite } from "../analytics/schemas.js";
import { normaliseDomain, type WebsiteItem } from "../config/index.js";
import { compareWebsite, createFields } from "./diff.js";
import type { Ownership, OwnershipRecord, Plan, PlanEntry, PlanSummary } from "./model.js";
import { declaredSecrets } from "./secrets.js";

export interface PlanOptions {
  /** `websites.prune`: delete owned websites that are no longer declared. */
  prune: boolean;
  /** From {@link deriveSecretKey}: the key of the write-only values' hashes. */
  secretKey: string;
  /**
   * False when the remote listing may have missed websites: no create and no delete is planned from it (the
   * website may be on a page not read), nothing is forgotten; updates of the websites seen go ahead.
   */
  complete?: boolean;
  /** Why the listing is incomplete, for the plan to say. */
  problem?: string;
}

export function planWebsites(
  desired: readonly WebsiteItem[],
  remote: readonly RemoteWebsite[],
  ownership: Ownership,
  options: PlanOptions,
): Plan {
  const declared = byDomain(desired);
  const found = groupRemote(remote);
  const complete = options.complete ?? true;
  const domains = [...new Set([...declared.keys(), ...found.keys()])].sort();
  const entries: PlanEntry[] = [];
  for (const domain of domains) {
    const websites = found.get(domain) ?? [];
    const item = declared.get(domain);
    const record = ownership.get(domain);
    if (websites.length > 1) entries.push(conflict(domain, websites));
    else if (item && websites.length === 0) entries.push(create(item, record, options.secretKey));
    else if (item) entries.push(update(item, websites[0]!, record, options.secretKey));
    else entries.push(undeclared(websites[0]!, domain, record, options.prune));
  }
  if (!complete) withhold(entries);
  const forget = complete
    ? [...ownership.keys()].filter((domain) => !declared.has(domain) && !found.has(domain)).sort()
    : [];
  return {
    entries,
    summary: summarise(entries),
    declared: declared.size,
    remote: { websites: remote.length, complete, ...(options.problem ? { problem: options.problem } : {}) },
    prune: options.prune,
    forget,
  };
}

function byDomain(desired: readonly WebsiteItem[]): Map<string, WebsiteItem> {
  const map = new Map<string, WebsiteItem>();
  for (const item of desired) {
    const domain = normaliseDomain(item.domain);
    // Config refuses duplicates; a caller that skipped config validation gets a loud failure, not a guess.
    if (map.has(domain)) throw new Error(`website ${domain} is declared twice`);
    map.set(domain, { ...item, domain });
  }
  return map;
}

/** Remote websites by normalised domain; more than one under a domain is a conflict. */
export function groupRemote(remote: readonly RemoteWebsite[]): Map<string, RemoteWebsite[]> {
  const map = new Map<string, RemoteWebsite[]>();
  for (const website of remote) {
    const domain = normaliseDomain(website.domain);
    const group = map.get(domain);
    if (group) group.push(website);
    else map.set(domain, [website]);
  }
  return map;
}

function isOwned(record: OwnershipRecord | undefined): boolean {
  return record?.origin === "created" || record?.origin === "imported";
}

/** The remote website is the one the record speaks of (an unknown id — a create in doubt — counts). */
function sameWebsite(record: OwnershipRecord | undefined, website: RemoteWebsite): boolean {
  return record !== undefined && (record.website_id === null || record.website_id === website.id);
}

function conflict(domain: string, websites: RemoteWebsite[]): PlanEntry {
  const ids = websites.map((website) => website.id).sort((a, b) => a - b);
  return {
    action: "conflict",
    domain,
    ids,
    reason: `${ids.length} remote websites (ids ${ids.join(", ")}) have this domain; resolve it by hand, topsync touches none of them`,
  };
}

function create(item: WebsiteItem, record: OwnershipRecord | undefined, key: string): PlanEntry {
  const fields = createFields(item);
  const secrets = declaredSecrets(item, key);
  if (!fields.sendPassword) delete secrets.password;
  return {
    action: "create",
    domain: item.domain,
    ...(item.declared_domain !== item.domain ? { declared_domain: item.declared_domain } : {}),
    ...fields,
    secrets,
    ...(isOwned(record) ? { reason: "topsync's website with this domain was deleted remotely" } : {}),
  };
}

function update(
  item: WebsiteItem,
  website: RemoteWebsite,
  record: OwnershipRecord | undefined,
  key: string,
): PlanEntry {
  const applied = sameWebsite(record, website) ? (record?.applied_secrets ?? null) : null;
  const changes = compareWebsite(item, website, declaredSecrets(item, key), applied);
  if (Object.keys(changes.diff).length === 0) return { action: "noop", domain: item.domain, id: website.id };
  return {
    action: "update",
    domain: item.domain,
    id: website.id,
    owned: isOwned(record) && sameWebsite(record, website),
    ...changes,
  };
}

function undeclared(
  website: RemoteWebsite,
  domain: string,
  record: OwnershipRecord | undefined,
  prune: boolean,
): PlanEntry {
  const base = { domain, id: website.id };
  if (!isOwned(record)) {
    return { action: "unmanaged", ...base, reason: "not declared and not owned by topsync" };
  }
  if (!sameWebsite(record, website)) {
    return {
      action: "unmanaged",
      ...base,
      reason: `topsync owned website ${record!.website_id} with this domain, not this one`,
    };
  }
  if (!prune) {
    return { action: "unmanaged", ...base, reason: "owned by topsync but no longer declared; prune is off" };
  }
  return { action: "delete", ...base, reason: `no longer declared (${record!.origin} by topsync)` };
}

/** An incomplete listing plans no create (the website may be on a page not read) and no delete. */
function withhold(entries: PlanEntry[]): void {
  const why = "the remote listing was incomplete";
  entries.forEach((entry, index) => {
    if (entry.action === "create") {
      entries[index] = {
        action: "withheld",
        domain: entry.domain,
        instead: "create",
        reason: `not created: ${why}, and it may exist on a page not read`,
      };
    } else if (entry.action === "delete") {
      entries[index] = {
        action: "withheld",
        domain: entry.domain,
        id: entry.id,
        instead: "delete",
        reason: `not deleted: ${why}, and a partial picture never causes a delete`,
      };
    }
  });
}

function summarise(entries: readonly PlanEntry[]): PlanSummary {
  const summary: PlanSummary = {
    create: 0,
    update: 0,
    delete: 0,
    unchanged: 0,
    unmanaged: 0,
    conflicts: 0,
    withheld: 0,
  };
  for (const entry of entries) {
    if (entry.action === "noop") summary.unchanged += 1;
    else if (entry.action === "conflict") summary.conflicts += 1;
    else summary[entry.action] += 1;
  }
  return summary;
}
