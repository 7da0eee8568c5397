// The ownership table: which websites topsync created or adopted (only those may ever be deleted), and the
// keyed hashes of the write-only values it last applied to each. One statement per change.
import { type SQL, sql } from "drizzle-orm";
import { type Db, rows } from "../db/client.js";
import type { OwnershipOrigin, OwnershipRecord, SecretHashes } from "./model.js";

type Row = [domain: string, websiteId: number | null, origin: OwnershipOrigin, secrets: SecretHashes | null];

/**
 * Every row, read as one JSON text: a pass reads the whole table (10,000 rows for 10,000 websites), and one value
 * parsed by JSON.parse costs a fraction of 10,000 rows decoded field by field (a fifth on the embedded database).
 */
export async function loadOwnership(db: Db): Promise<Map<string, OwnershipRecord>> {
  const [found] = await rows<{ owned: string }>(
    db,
    sql`select coalesce(json_agg(json_build_array(domain, website_id, origin, applied_secrets)), '[]')::text as owned
        from website_ownership`,
  );
  const records = JSON.parse(found?.owned ?? "[]") as Row[];
  return new Map(records.map((row) => [row[0], toRecord(row)]));
}

function toRecord([domain, websiteId, origin, secrets]: Row): OwnershipRecord {
  return { domain, website_id: websiteId, origin, applied_secrets: secrets ?? null };
}

export interface OwnedWrite {
  domain: string;
  websiteId: number | null;
  secrets: SecretHashes;
}

/**
 * topsync created these websites (or may have: `websiteId` null when a create's outcome is unknown, so that
 * the next pass treats whatever it finds under the domain as its own). The hashes replace any earlier ones.
 */
export async function recordCreated(db: Db, created: readonly OwnedWrite[]): Promise<void> {
  if (created.length === 0) return;
  const values = created.map(
    (c) => sql`(${c.domain}, ${c.websiteId}, 'created', ${JSON.stringify(c.secrets)}::jsonb)`,
  );
  await db.execute(
    sql`insert into website_ownership (domain, website_id, origin, applied_secrets)
        values ${sql.join(values, sql`, `)}
        on conflict (domain) do update set
          website_id = excluded.website_id, origin = 'created',
          applied_secrets = excluded.applied_secrets, updated_at = now()`,
  );
}

/**
 * topsync updated these websites: merges the hashes of what it sent into what it applied before. A row about
 * another website with the same domain is replaced (and no longer makes this one owned).
 */
export async function recordUpdated(db: Db, updated: readonly OwnedWrite[]): Promise<void> {
  if (updated.length === 0) return;
  const values = updated.map(
    (u) => sql`(${u.domain}, ${u.websiteId}, 'declared', ${JSON.stringify(u.secrets)}::jsonb)`,
  );
  const same = sql`(website_ownership.website_id is null or website_ownership.website_id = excluded.website_id)`;
  await db.execute(
    sql`insert into website_ownership (domain, website_id, origin, applied_secrets)
        values ${sql.join(values, sql`, `)}
        on conflict (domain) do update set
          origin = case when ${same} then website_ownership.origin else 'declared' end,
          applied_secrets = case when ${same}
            then coalesce(website_ownership.applied_secrets, '{}'::jsonb) || excluded.applied_secrets
            else excluded.applied_secrets end,
          website_id = excluded.website_id, updated_at = now()`,
  );
}

/**
 * Before creates are sent: each domain is topsync's, its website's id unknown until the answer says, so that a
 * process that dies while a create is in flight (the service may have made the website) leaves the domain owned and
 * the next pass adopts what it finds. Returns the rows these replaced, by domain, for {@link restoreOwnership}.
 */
export async function recordPending(
  db: Db,
  pending: readonly { domain: string; secrets: SecretHashes }[],
): Promise<Map<string, OwnershipRecord>> {
  if (pending.length === 0) return new Map();
  const values = pending.map((p) => sql`(${p.domain}::text, ${JSON.stringify(p.secrets)}::jsonb)`);
  // Every part of one statement reads the table as it was before it, so `old` holds the rows replaced.
  const [found] = await rows<{ old: string }>(
    db,
    sql`with input (domain, secrets) as (values ${sql.join(values, sql`, `)}),
        old as (select w.domain, w.website_id, w.origin, w.applied_secrets from website_ownership w
                where w.domain in (select domain from input)),
        pending as (
          insert into website_ownership (domain, website_id, origin, applied_secrets)
          select domain, null, 'created', secrets from input
          on conflict (domain) do update set
            website_id = null, origin = 'created', applied_secrets = excluded.applied_secrets, updated_at = now()
        )
        select coalesce(json_agg(json_build_array(domain, website_id, origin, applied_secrets)), '[]')::text as old
        from old`,
  );
  const replaced = JSON.parse(found?.old ?? "[]") as Row[];
  return new Map(replaced.map((row) => [row[0], toRecord(row)]));
}

/**
 * Creates the service certainly did not carry out: each domain's row goes back to what it was before
 * {@link recordPending} (none: no row), unless something else has been recorded for it since.
 */
export async function restoreOwnership(
  db: Db,
  restores: readonly { domain: string; previous: OwnershipRecord | null }[],
): Promise<void> {
  const pendingOnly = sql`website_ownership.website_id is null and website_ownership.origin = 'created'`;
  const gone = restores.filter((r) => r.previous === null).map((r) => r.domain);
  if (gone.length > 0)
    await db.execute(sql`delete from website_ownership where domain in (${list(gone)}) and ${pendingOnly}`);
  const back = restores.flatMap((r) => (r.previous ? [r.previous] : []));
  if (back.length === 0) return;
  const values = back.map(
    (r) =>
      sql`(${r.domain}::text, ${r.website_id}::bigint, ${r.origin}::text, ${r.applied_secrets === null ? null : JSON.stringify(r.applied_secrets)}::jsonb)`,
  );
  await db.execute(
    sql`update website_ownership set website_id = old.website_id, origin = old.origin,
          applied_secrets = old.applied_secrets, updated_at = now()
        from (values ${sql.join(values, sql`, `)}) as old (domain, website_id, origin, applied_secrets)
        where website_ownership.domain = old.domain and ${pendingOnly}`,
  );
}

/** A person adopted the website (`websites import`); hashes about another website are dropped. */
export async function recordImported(db: Db, domain: string, websiteId: number): Promise<void> {
  await db.execute(
    sql`insert into website_ownership (domain, website_id, origin, applied_secrets)
        values (${domain}, ${websiteId}, 'imported', null)
        on conflict (domain) do update set
          origin = 'imported',
          applied_secrets = case when website_ownership.website_id = excluded.website_id
            then website_ownership.applied_secrets else null end,
          website_id = excluded.website_id, updated_at = now()`,
  );
}

/** These websites were deleted: they are no longer topsync's. */
export async function removeOwnership(
  db: Db,
  removed: readonly { domain: string; websiteId: number }[],
): Promise<void> {
  if (removed.length === 0) return;
  const values = removed.map((r) => sql`(${r.domain}::text, ${r.websiteId}::bigint)`);
  await db.execute(
    sql`delete from website_ownership w using (values ${sql.join(values, sql`, `)}) as gone (domain, website_id)
        where w.domain = gone.domain and (w.website_id is null or w.website_id = gone.website_id)`,
  );
}

/** Drops rows of domains that are neither declared nor remote any more (see Plan.forget). */
export async function forgetOwnership(db: Db, domains: readonly string[]): Promise<void> {
  for (let start = 0; start < domains.length; start += 500) {
    const chunk = domains.slice(start, start + 500);
    await db.execute(sql`delete from website_ownership where domain in (${list(chunk)})`);
  }
}

function list(values: readonly string[]): SQL {
  return sql.join(
    values.map((value) => sql`${value}`),
    sql`, `,
  );
}
