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
  /**
   * A person accepts that every website topsync owns is gone from the service (`websites apply
   * --accept-vanished`): without it, a listing showing none of them is not trusted to create or forget anything.
   */
  acceptVanished?: boolean;
  /**
   * Owned domains the listing does not show whose absence is not confirmed yet (their look-up by id failed, or
   * waits for a later pass; see missing.ts): not created again and not forgotten in this pass.
   */
  unconfirmed?: ReadonlySet<string>;
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
  const vanished = complete && !options.acceptVanished ? vanishedOwned(ownership, found) : [];
  const trusted = complete && vanished.length === 0;
  const unconfirmed = options.unconfirmed ?? new Set<string>();
  if (!complete) withhold(entries, INCOMPLETE);
  else if (!trusted) withhold(entries, VANISHED);
  else if (unconfirmed.size > 0) withhold(entries, UNCONFIRMED, unconfirmed);
  const forget = trusted
    ? [...ownership.keys()]
        .filter((domain) => !declared.has(domain) && !found.has(domain) && !unconfirmed.has(domain))
        .sort()
    : [];
  const problem = options.problem ?? (vanished.length > 0 ? vanishedProblem(vanished) : undefined);
  return {
    entries,
    summary: summarise(entries),
    declared: declared.size,
    remote: {
      websites: remote.length,
      complete: trusted,
      ...(problem ? { problem } : {}),
      ...(vanished.length > 0 ? { vanished: vanished.length } : {}),
    },
    prune: options.prune,
    forget,
  };
}

/**
 * Every website topsync owns, when the listing shows none of them: a service that shows an account empty (or
 * another account) for a moment would otherwise have topsync forget what it owns and create everything again.
 */
function vanishedOwned(ownership: Ownership, found: Map<string, RemoteWebsite[]>): string[] {
  // Only websites known to have existed (their id recorded): a create whose outcome is unknown, or that a killed
  // process never sent, may have made nothing, and its absence says nothing about the account.
  const owned = [...ownership.values()]
    .filter((record) => isOwned(record) && record.website_id !== null)
    .map((record) => record.domain);
  return owned.length > 0 && owned.every((domain) => !found.has(domain)) ? owned.sort() : [];
}

function vanishedProblem(vanished: readonly string[]): string {
  const shown =
    vanished.slice(0, 5).join(", ") + (vanished.length > 5 ? `, and ${vanished.length - 5} more` : "");
  return `the listing shows none of the ${vanished.length} websites topsync owns (${shown}); an account that looks empty for a moment would make topsync forget them and create them again, so nothing is created, deleted or forgotten. If they are really gone, run \`topsync websites apply --accept-vanished\``;
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
  if (Object.keys(changes.diff).length === 0) {
    const adopt = isOwned(record) && record?.website_id === null;
    return {
      action: "noop",
      domain: item.domain,
      id: website.id,
      ...(adopt ? { adopt: true as const } : {}),
    };
  }
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
const INCOMPLETE = {
  create: "not created: the remote listing was incomplete, and it may exist on a page not read",
  delete: "not deleted: the remote listing was incomplete, and a partial picture never causes a delete",
};
const VANISHED = {
  create: "not created: the listing shows none of the websites topsync owns, and it may still exist",
  delete: "not deleted: the listing shows none of the websites topsync owns",
};

/** An owned website missing from the listing whose look-up by id did not say it is gone. */
const UNCONFIRMED = {
  create:
    "not created again yet: topsync's website with this domain is missing from the listing, and looking it up by id did not confirm it is gone",
  delete: "",
};

function withhold(
  entries: PlanEntry[],
  why: { create: string; delete: string },
  only?: ReadonlySet<string>,
): void {
  entries.forEach((entry, index) => {
    if (only && !only.has(entry.domain)) return;
    if (entry.action === "create") {
      entries[index] = { action: "withheld", domain: entry.domain, instead: "create", reason: why.create };
    } else if (entry.action === "delete") {
      entries[index] = {
        action: "withheld",
        domain: entry.domain,
        id: entry.id,
        instead: "delete",
        reason: why.delete,
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
