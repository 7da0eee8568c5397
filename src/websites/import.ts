// `websites import`: a person adopts existing remote websites, so topsync owns them (and may prune them).
// All or nothing: any domain that is not exactly one remote website stops the import before it records any.
import type { WebsiteListing } from "../analytics/client.js";
import type { RemoteWebsite } from "../analytics/schemas.js";
import { domainProblem, normaliseDomain } from "../config/index.js";
import type { Db } from "../db/client.js";
import { UsageError } from "../errors.js";
import { loadOwnership, recordImported } from "./ownership.js";
import { groupRemote } from "./plan.js";

export interface ImportedWebsite {
  domain: string;
  id: number;
  /** `already-owned` when topsync owned this very website before (created or imported). */
  result: "imported" | "already-owned";
}

export async function importWebsites(
  api: { listWebsites(): Promise<WebsiteListing> },
  db: Db,
  domains: readonly string[],
): Promise<ImportedWebsite[]> {
  const wanted = normaliseAll(domains);
  const { websites } = await api.listWebsites();
  const found = matches(wanted, websites);
  const owned = await loadOwnership(db);
  const results: ImportedWebsite[] = [];
  for (const [domain, website] of found) {
    const record = owned.get(domain);
    const before = record?.website_id === website.id && record.origin !== "declared";
    if (!before) await recordImported(db, domain, website.id);
    results.push({ domain, id: website.id, result: before ? "already-owned" : "imported" });
  }
  return results;
}

function normaliseAll(domains: readonly string[]): string[] {
  if (domains.length === 0) throw new UsageError("name at least one domain to import");
  const problems = domains.flatMap((domain) => {
    const problem = domainProblem(normaliseDomain(domain));
    return problem ? [`"${domain}" is not a valid domain: it ${problem}`] : [];
  });
  if (problems.length > 0) throw new UsageError(problems.join("\n"), "BAD_DOMAIN");
  return [...new Set(domains.map(normaliseDomain))];
}

function matches(wanted: readonly string[], websites: readonly RemoteWebsite[]): Map<string, RemoteWebsite> {
  const byDomain = groupRemote(websites);
  const missing = wanted.filter((domain) => !byDomain.has(domain));
  const doubled = wanted.filter((domain) => (byDomain.get(domain)?.length ?? 0) > 1);
  const problems: string[] = [];
  if (missing.length > 0) {
    problems.push(`not found on the analytics service: ${missing.join(", ")}`);
  }
  for (const domain of doubled) {
    const ids = byDomain.get(domain)!.map((website) => website.id);
    problems.push(
      `${domain} is ${ids.length} remote websites (ids ${ids.join(", ")}); resolve that by hand first`,
    );
  }
  if (problems.length > 0) {
    throw new UsageError(`nothing was imported: ${problems.join("; ")}`, "IMPORT_UNKNOWN_DOMAIN");
  }
  return new Map(wanted.map((domain) => [domain, byDomain.get(domain)![0]!]));
}
