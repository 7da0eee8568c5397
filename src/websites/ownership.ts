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
