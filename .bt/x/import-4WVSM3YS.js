import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  groupRemote,
  loadOwnership,
  recordImported
} from "./chunk-LO6SG345.js";
import {
  domainProblem,
  normaliseDomain
} from "./chunk-GJL2AOOX.js";
import "./chunk-76UW4DC7.js";
import "./chunk-VAUR3CNU.js";
import "./chunk-L3UC3SYL.js";
import "./chunk-WW7OP26R.js";
import "./chunk-BH4POYA2.js";
import "./chunk-4DGXMM26.js";
import {
  UsageError
} from "./chunk-3SYTADOT.js";
import "./chunk-57HFVDAX.js";
import "./chunk-TULZGMTI.js";
import "./chunk-FBKOPLBK.js";
import "./chunk-R5RR2GLU.js";
import "./chunk-V4RWK56N.js";

// dist/websites/import.js
async function importWebsites(api, db, domains) {
  const wanted = normaliseAll(domains);
  const { websites } = await api.listWebsites();
  const found = matches(wanted, websites);
  const owned = await loadOwnership(db);
  const results = [];
  for (const [domain, website] of found) {
    const record = owned.get(domain);
    const before = record?.website_id === website.id && record.origin !== "declared";
    if (!before)
      await recordImported(db, domain, website.id);
    results.push({ domain, id: website.id, result: before ? "already-owned" : "imported" });
  }
  return results;
}
function normaliseAll(domains) {
  if (domains.length === 0)
    throw new UsageError("name at least one domain to import");
  const problems = domains.flatMap((domain) => {
    const problem = domainProblem(normaliseDomain(domain));
    return problem ? [`"${domain}" is not a valid domain: it ${problem}`] : [];
  });
  if (problems.length > 0)
    throw new UsageError(problems.join("\n"), "BAD_DOMAIN");
  return [...new Set(domains.map(normaliseDomain))];
}
function matches(wanted, websites) {
  const byDomain = groupRemote(websites);
  const missing = wanted.filter((domain) => !byDomain.has(domain));
  const doubled = wanted.filter((domain) => (byDomain.get(domain)?.length ?? 0) > 1);
  const problems = [];
  if (missing.length > 0) {
    problems.push(`not found on the analytics service: ${missing.join(", ")}`);
  }
  for (const domain of doubled) {
    const ids = byDomain.get(domain).map((website) => website.id);
    problems.push(`${domain} is ${ids.length} remote websites (ids ${ids.join(", ")}); resolve that by hand first`);
  }
  if (problems.length > 0) {
    throw new UsageError(`nothing was imported: ${problems.join("; ")}`, "IMPORT_UNKNOWN_DOMAIN");
  }
  return new Map(wanted.map((domain) => [domain, byDomain.get(domain)[0]]));
}
export {
  importWebsites
};
