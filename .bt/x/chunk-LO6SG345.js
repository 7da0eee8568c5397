import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  normaliseDomain,
  privacyName
} from "./chunk-GJL2AOOX.js";
import {
  rows
} from "./chunk-BH4POYA2.js";
import {
  sql
} from "./chunk-FBKOPLBK.js";
import {
  SENSITIVE
} from "./chunk-R5RR2GLU.js";

// dist/websites/secrets.js
import { createHmac } from "node:crypto";
function deriveSecretKey(apiKey) {
  return createHmac("sha256", apiKey).update("topsync website secrets v1").digest("hex");
}
function keyedHash(key, field, value) {
  return createHmac("sha256", Buffer.from(key, "hex")).update(`${field}
${value}`).digest("hex");
}
function passwordHash(key, password) {
  return keyedHash(key, "password", password);
}
function excludeParamsHash(key, params) {
  return keyedHash(key, "exclude_params", canonicalSet(params).join("\n"));
}
function canonicalSet(values) {
  const set = new Set(values.map((value) => value.trim()).filter((value) => value !== ""));
  return [...set].sort();
}
function declaredSecrets(item, key) {
  const hashes = { exclude_params: excludeParamsHash(key, item.exclude_params) };
  if (item.privacy === 2 && item.password !== void 0)
    hashes.password = passwordHash(key, item.password);
  return hashes;
}

// dist/websites/diff.js
function compareWebsite(item, remote, declared, applied) {
  const changes = { diff: {}, send: {}, sendPassword: false, secrets: {} };
  if (item.privacy !== remote.privacy) {
    changes.diff.privacy = { from: privacyName(remote.privacy), to: privacyName(item.privacy) };
    changes.send.privacy = item.privacy;
  }
  for (const field of ["email", "exclude_bots"]) {
    if (item[field] === remote[field])
      continue;
    changes.diff[field] = { from: remote[field] === 1, to: item[field] === 1 };
    changes.send[field] = item[field];
  }
  if (!sameSet(item.exclude_ips, remote.exclude_ips)) {
    changes.diff.exclude_ips = { from: remote.exclude_ips, to: canonicalList(item.exclude_ips) };
    changes.send.exclude_ips = canonicalList(item.exclude_ips);
  }
  comparePassword(item, remote, declared, applied, changes);
  if (applied?.exclude_params === void 0 || applied.exclude_params !== declared.exclude_params) {
    changes.diff.exclude_params = { from: SENSITIVE, to: SENSITIVE };
    changes.send.exclude_params = canonicalList(item.exclude_params);
    changes.secrets.exclude_params = declared.exclude_params;
  }
  return changes;
}
function comparePassword(item, remote, declared, applied, changes) {
  if (item.privacy !== 2 || declared.password === void 0)
    return;
  if (remote.password && applied?.password === declared.password)
    return;
  changes.diff.password = { from: remote.password ? SENSITIVE : null, to: SENSITIVE };
  changes.sendPassword = true;
  changes.secrets.password = declared.password;
}
function createFields(item) {
  const sendPassword = item.privacy === 2 && item.password !== void 0;
  const diff = {
    privacy: { from: null, to: privacyName(item.privacy) },
    email: { from: null, to: item.email === 1 },
    exclude_bots: { from: null, to: item.exclude_bots === 1 },
    exclude_ips: { from: null, to: canonicalList(item.exclude_ips) },
    exclude_params: { from: null, to: SENSITIVE }
  };
  if (sendPassword)
    diff.password = { from: null, to: SENSITIVE };
  const send = {
    privacy: item.privacy,
    email: item.email,
    exclude_bots: item.exclude_bots,
    exclude_ips: canonicalList(item.exclude_ips),
    exclude_params: canonicalList(item.exclude_params)
  };
  return { diff, send, sendPassword };
}
function sameSet(declared, remote) {
  const a = canonicalSet(declared);
  const b = canonicalSet(remote);
  return a.length === b.length && a.every((value, index) => value === b[index]);
}
function canonicalList(values) {
  return [...new Set(values.map((value) => value.trim()).filter((value) => value !== ""))];
}

// dist/websites/plan.js
function planWebsites(desired, remote, ownership, options) {
  const declared = byDomain(desired);
  const found = groupRemote(remote);
  const complete = options.complete ?? true;
  const domains = [.../* @__PURE__ */ new Set([...declared.keys(), ...found.keys()])].sort();
  const entries = [];
  for (const domain of domains) {
    const websites = found.get(domain) ?? [];
    const item = declared.get(domain);
    const record = ownership.get(domain);
    if (websites.length > 1)
      entries.push(conflict(domain, websites));
    else if (item && websites.length === 0)
      entries.push(create(item, record, options.secretKey));
    else if (item)
      entries.push(update(item, websites[0], record, options.secretKey));
    else
      entries.push(undeclared(websites[0], domain, record, options.prune));
  }
  if (!complete)
    withhold(entries);
  const forget = complete ? [...ownership.keys()].filter((domain) => !declared.has(domain) && !found.has(domain)).sort() : [];
  return {
    entries,
    summary: summarise(entries),
    declared: declared.size,
    remote: { websites: remote.length, complete, ...options.problem ? { problem: options.problem } : {} },
    prune: options.prune,
    forget
  };
}
function byDomain(desired) {
  const map = /* @__PURE__ */ new Map();
  for (const item of desired) {
    const domain = normaliseDomain(item.domain);
    if (map.has(domain))
      throw new Error(`website ${domain} is declared twice`);
    map.set(domain, { ...item, domain });
  }
  return map;
}
function groupRemote(remote) {
  const map = /* @__PURE__ */ new Map();
  for (const website of remote) {
    const domain = normaliseDomain(website.domain);
    const group = map.get(domain);
    if (group)
      group.push(website);
    else
      map.set(domain, [website]);
  }
  return map;
}
function isOwned(record) {
  return record?.origin === "created" || record?.origin === "imported";
}
function sameWebsite(record, website) {
  return record !== void 0 && (record.website_id === null || record.website_id === website.id);
}
function conflict(domain, websites) {
  const ids = websites.map((website) => website.id).sort((a, b) => a - b);
  return {
    action: "conflict",
    domain,
    ids,
    reason: `${ids.length} remote websites (ids ${ids.join(", ")}) have this domain; resolve it by hand, topsync touches none of them`
  };
}
function create(item, record, key) {
  const fields = createFields(item);
  const secrets = declaredSecrets(item, key);
  if (!fields.sendPassword)
    delete secrets.password;
  return {
    action: "create",
    domain: item.domain,
    ...item.declared_domain !== item.domain ? { declared_domain: item.declared_domain } : {},
    ...fields,
    secrets,
    ...isOwned(record) ? { reason: "topsync's website with this domain was deleted remotely" } : {}
  };
}
function update(item, website, record, key) {
  const applied = sameWebsite(record, website) ? record?.applied_secrets ?? null : null;
  const changes = compareWebsite(item, website, declaredSecrets(item, key), applied);
  if (Object.keys(changes.diff).length === 0)
    return { action: "noop", domain: item.domain, id: website.id };
  return {
    action: "update",
    domain: item.domain,
    id: website.id,
    owned: isOwned(record) && sameWebsite(record, website),
    ...changes
  };
}
function undeclared(website, domain, record, prune) {
  const base = { domain, id: website.id };
  if (!isOwned(record)) {
    return { action: "unmanaged", ...base, reason: "not declared and not owned by topsync" };
  }
  if (!sameWebsite(record, website)) {
    return {
      action: "unmanaged",
      ...base,
      reason: `topsync owned website ${record.website_id} with this domain, not this one`
    };
  }
  if (!prune) {
    return { action: "unmanaged", ...base, reason: "owned by topsync but no longer declared; prune is off" };
  }
  return { action: "delete", ...base, reason: `no longer declared (${record.origin} by topsync)` };
}
function withhold(entries) {
  const why = "the remote listing was incomplete";
  entries.forEach((entry, index) => {
    if (entry.action === "create") {
      entries[index] = {
        action: "withheld",
        domain: entry.domain,
        instead: "create",
        reason: `not created: ${why}, and it may exist on a page not read`
      };
    } else if (entry.action === "delete") {
      entries[index] = {
        action: "withheld",
        domain: entry.domain,
        id: entry.id,
        instead: "delete",
        reason: `not deleted: ${why}, and a partial picture never causes a delete`
      };
    }
  });
}
function summarise(entries) {
  const summary = {
    create: 0,
    update: 0,
    delete: 0,
    unchanged: 0,
    unmanaged: 0,
    conflicts: 0,
    withheld: 0
  };
  for (const entry of entries) {
    if (entry.action === "noop")
      summary.unchanged += 1;
    else if (entry.action === "conflict")
      summary.conflicts += 1;
    else
      summary[entry.action] += 1;
  }
  return summary;
}

// dist/websites/ownership.js
async function loadOwnership(db) {
  const found = await rows(db, sql`select domain, website_id, origin, applied_secrets from website_ownership`);
  return new Map(found.map((row) => [row.domain, toRecord(row)]));
}
function toRecord(row) {
  const secrets = typeof row.applied_secrets === "string" ? JSON.parse(row.applied_secrets) : row.applied_secrets;
  return {
    domain: row.domain,
    website_id: row.website_id === null ? null : Number(row.website_id),
    origin: row.origin,
    applied_secrets: secrets ?? null
  };
}
async function recordCreated(db, created) {
  if (created.length === 0)
    return;
  const values = created.map((c) => sql`(${c.domain}, ${c.websiteId}, 'created', ${JSON.stringify(c.secrets)}::jsonb)`);
  await db.execute(sql`insert into website_ownership (domain, website_id, origin, applied_secrets)
        values ${sql.join(values, sql`, `)}
        on conflict (domain) do update set
          website_id = excluded.website_id, origin = 'created',
          applied_secrets = excluded.applied_secrets, updated_at = now()`);
}
async function recordUpdated(db, updated) {
  if (updated.length === 0)
    return;
  const values = updated.map((u) => sql`(${u.domain}, ${u.websiteId}, 'declared', ${JSON.stringify(u.secrets)}::jsonb)`);
  const same = sql`(website_ownership.website_id is null or website_ownership.website_id = excluded.website_id)`;
  await db.execute(sql`insert into website_ownership (domain, website_id, origin, applied_secrets)
        values ${sql.join(values, sql`, `)}
        on conflict (domain) do update set
          origin = case when ${same} then website_ownership.origin else 'declared' end,
          applied_secrets = case when ${same}
            then coalesce(website_ownership.applied_secrets, '{}'::jsonb) || excluded.applied_secrets
            else excluded.applied_secrets end,
          website_id = excluded.website_id, updated_at = now()`);
}
async function recordImported(db, domain, websiteId) {
  await db.execute(sql`insert into website_ownership (domain, website_id, origin, applied_secrets)
        values (${domain}, ${websiteId}, 'imported', null)
        on conflict (domain) do update set
          origin = 'imported',
          applied_secrets = case when website_ownership.website_id = excluded.website_id
            then website_ownership.applied_secrets else null end,
          website_id = excluded.website_id, updated_at = now()`);
}
async function removeOwnership(db, removed) {
  if (removed.length === 0)
    return;
  const values = removed.map((r) => sql`(${r.domain}::text, ${r.websiteId}::bigint)`);
  await db.execute(sql`delete from website_ownership w using (values ${sql.join(values, sql`, `)}) as gone (domain, website_id)
        where w.domain = gone.domain and (w.website_id is null or w.website_id = gone.website_id)`);
}
async function forgetOwnership(db, domains) {
  for (let start = 0; start < domains.length; start += 500) {
    const chunk = domains.slice(start, start + 500);
    await db.execute(sql`delete from website_ownership where domain in (${list(chunk)})`);
  }
}
function list(values) {
  return sql.join(values.map((value) => sql`${value}`), sql`, `);
}

export {
  deriveSecretKey,
  passwordHash,
  planWebsites,
  groupRemote,
  loadOwnership,
  recordCreated,
  recordUpdated,
  recordImported,
  removeOwnership,
  forgetOwnership
};
