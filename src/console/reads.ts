// What the console's pages read: SELECTs only, each bounded (a LIMIT, a page by keyset) and each served by an
// index of the ledger — the unsettled states' partial index, the unique request key and reference, the
// creation-time range index, a plan's open status, a purchase's events by its key.
import { type SQL, sql } from "drizzle-orm";
import { type Executor, rows } from "../db/client.js";
import type { PurchaseState } from "../db/schema.js";

/** Rows a list shows per page. */
export const PAGE_SIZE = 50;

export interface AttentionCount {
  state: string;
  n: number;
  amount: string;
}

export interface AttentionPurchase {
  id: number;
  state: string;
  job_name: string | null;
  source: string;
  phone: string;
  network: string;
  plan_id: string | null;
  plan_name: string | null;
  amount: string | null;
  reference: string | null;
  reason: string | null;
  note: string | null;
  updated_at: Date;
  candidates: number;
  last_event: string | null;
}

type Raw<T> = {
  [K in keyof T]: T[K] extends Date ? Date | string : T[K] extends number ? number | string : T[K];
};

const when = (value: Date | string) => new Date(value);

/** The purchases a person must settle: in_doubt, unverified (verify mismatches among them), counted with money. */
export async function attentionCounts(db: Executor): Promise<AttentionCount[]> {
  const found = await rows<Raw<AttentionCount>>(
    db,
    sql`select state, count(*)::int as n, coalesce(sum(coalesce(charged_amount, amount)), 0)::text as amount
        from purchases where state in ('in_doubt', 'unverified') group by state order by state`,
  );
  return found.map((r) => ({ state: r.state, n: Number(r.n), amount: r.amount }));
}

/** Purchases settled with a note a person should read (a price the provider charged above the listed one). */
export async function notedCount(db: Executor): Promise<number> {
  const [row] = await rows<{ n: number | string }>(
    db,
    sql`select count(*)::int as n from (select 1 from purchases where note is not null limit 10000) x`,
  );
  return Number(row?.n ?? 0);
}

/** The oldest unsettled purchases first, each with its last event's reason and the notifications that may be it. */
export async function attentionPurchases(db: Executor, limit: number): Promise<AttentionPurchase[]> {
  const found = await rows<Raw<AttentionPurchase>>(
    db,
    sql`select p.id, p.state, p.job_name, p.source, p.phone, p.network, p.plan_id, p.plan_name,
          coalesce(p.charged_amount, p.amount)::text as amount, p.reference, p.reason, p.note, p.updated_at,
          (case when p.state = 'in_doubt' then (
            select count(*)::int from provider_notifications n
            where n.outcome = 'unmatched' and n.amount = coalesce(p.charged_amount, p.amount)
              and right(regexp_replace(coalesce(n.phone, ''), '[^0-9]', '', 'g'), 3) = right(p.phone, 3)
          ) else 0 end) as candidates,
          (select e.reason from purchase_events e where e.purchase_id = p.id order by e.id desc limit 1) as last_event
        from purchases p where p.state in ('in_doubt', 'unverified')
        order by p.updated_at, p.id limit ${limit}`,
  );
  return found.map((r) => ({
    ...r,
    id: Number(r.id),
    candidates: Number(r.candidates),
    updated_at: when(r.updated_at),
  }));
}

export interface OpenPlan {
  id: string;
  kind: string;
  origin: string;
  author: string;
  status: string;
  total: string;
  items: number;
  approvals_required: number;
  created_at: Date;
  expires_at: Date;
}

/**
 * Plans waiting for approval or to be applied: those awaiting an approval or expiring within `expiringWithinMs`
 * first, then the other approved ones, each part soonest to expire first. Approved plans with time left came first
 * before whenever they expired sooner, filled the page's 25, and the plans waiting for an approval were not listed.
 */
export async function openPlans(db: Executor, limit: number, expiringWithinMs: number): Promise<OpenPlan[]> {
  const found = await rows<Raw<OpenPlan>>(
    db,
    sql`select id, kind, origin, author, status, total::text as total, items, approvals_required, created_at, expires_at
        from saved_plans where status in ('pending_approval', 'approved', 'applying')
        order by (status = 'pending_approval' or expires_at < now() + ${expiringWithinMs} * interval '1 millisecond') desc,
          expires_at, id
        limit ${limit}`,
  );
  return found.map((r) => ({
    ...r,
    items: Number(r.items),
    approvals_required: Number(r.approvals_required),
    created_at: when(r.created_at),
    expires_at: when(r.expires_at),
  }));
}

/** How many plans wait for an approval: all of them, not only those a page lists. */
export async function pendingPlanCount(db: Executor): Promise<number> {
  const [row] = await rows<{ n: number | string }>(
    db,
    sql`select count(*)::int as n from saved_plans where status = 'pending_approval'`,
  );
  return Number(row?.n ?? 0);
}

export const PLAN_STATUS_GROUPS = {
  pending: ["pending_approval"],
  approved: ["approved", "applying"],
  applied: ["applied"],
  ended: ["rejected", "expired", "cancelled"],
} as const;
export type PlanGroup = keyof typeof PLAN_STATUS_GROUPS;

/** One page of plans of a status group, newest first; `before` is the created_at/id of the last row shown. */
export async function plansByStatus(
  db: Executor,
  group: PlanGroup,
  before: { at: string; id: string } | undefined,
): Promise<Array<OpenPlan & { created_key: string }>> {
  const statuses = PLAN_STATUS_GROUPS[group];
  const after = before ? sql`and (created_at, id) < (${before.at}::timestamptz, ${before.id})` : sql``;
  // created_key: the time to the microsecond, as the ledger keeps it, for the pager (a Date keeps milliseconds, and
  // the plans made within the millisecond of the last one listed were on no page).
  const found = await rows<Raw<OpenPlan & { created_key: string }>>(
    db,
    sql`select id, kind, origin, author, status, total::text as total, items, approvals_required, created_at, expires_at,
          to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_key
        from saved_plans where status in (${sql.join(
          statuses.map((s) => sql`${s}`),
          sql`, `,
        )}) ${after}
        order by created_at desc, id desc limit ${PAGE_SIZE}`,
  );
  return found.map((r) => ({
    ...r,
    items: Number(r.items),
    approvals_required: Number(r.approvals_required),
    created_at: when(r.created_at),
    expires_at: when(r.expires_at),
  }));
}

export interface LastPass {
  id: number;
  started_at: Date;
  finished_at: Date | null;
  mode: string;
  status: string;
  created: number;
  updated: number;
  deleted: number;
  unchanged: number;
  unmanaged: number;
  conflicts: number;
  errors: unknown;
  summary: unknown;
}

/** The newest website pass. */
export async function lastWebsitePass(db: Executor): Promise<LastPass | undefined> {
  const [row] = await rows<Raw<LastPass>>(
    db,
    sql`select id, started_at, finished_at, mode, status, created, updated, deleted, unchanged, unmanaged, conflicts,
          errors, summary
        from website_runs order by started_at desc, id desc limit 1`,
  );
  if (!row) return undefined;
  return {
    ...row,
    id: Number(row.id),
    started_at: when(row.started_at),
    finished_at: row.finished_at === null ? null : when(row.finished_at),
  } as LastPass;
}

export interface FailedMessage {
  id: number;
  channel: string;
  trigger: string;
  attempts: number;
  last_error: string | null;
  created_at: Date;
}

/** Notifications given up on (a channel that refused them until give_up_after), the newest of the last week. */
export async function failedMessages(db: Executor, now: Date, limit: number): Promise<FailedMessage[]> {
  const since = new Date(now.getTime() - 7 * 86_400_000).toISOString();
  const found = await rows<Raw<FailedMessage>>(
    db,
    sql`select id, channel, trigger, attempts, last_error, created_at from notification_deliveries
        where created_at >= ${since}::timestamptz and status = 'failed' order by created_at desc, id desc limit ${limit}`,
  );
  return found.map((r) => ({
    ...r,
    id: Number(r.id),
    attempts: Number(r.attempts),
    created_at: when(r.created_at),
  }));
}

/** How many notifications were given up on in the 7 days before `now`: all of them, not only those listed. */
export async function failedMessageCount(db: Executor, now: Date): Promise<number> {
  const since = new Date(now.getTime() - 7 * 86_400_000).toISOString();
  const [row] = await rows<{ n: number | string }>(
    db,
    sql`select count(*)::int as n from notification_deliveries
        where created_at >= ${since}::timestamptz and status = 'failed'`,
  );
  return Number(row?.n ?? 0);
}

export interface FireRow {
  job_name: string;
  fire_time: Date;
  status: string;
  reason: string | null;
  finished_at: Date | null;
}

/** Each job's latest recorded fires, newest first: `limit` per job, each read by the fires' (job, time) index. */
export async function lastFires(
  db: Executor,
  jobs: string[],
  limit: number,
): Promise<Map<string, FireRow[]>> {
  const byJob = new Map<string, FireRow[]>();
  if (jobs.length === 0) return byJob;
  const found = await rows<Raw<FireRow>>(
    db,
    sql`select j.name as job_name, f.fire_time, f.status, f.reason, f.finished_at
        from json_array_elements_text(${JSON.stringify(jobs)}::json) as j(name)
        cross join lateral (
          select fire_time, status, reason, finished_at from schedule_fires
          where job_name = j.name order by fire_time desc limit ${limit}
        ) f
        order by j.name, f.fire_time desc`,
  );
  for (const r of found) {
    const row: FireRow = {
      ...r,
      fire_time: when(r.fire_time),
      finished_at: r.finished_at === null ? null : when(r.finished_at),
    };
    byJob.set(row.job_name, [...(byJob.get(row.job_name) ?? []), row]);
  }
  return byJob;
}

export interface PurchaseSearch {
  /** An id, a provider reference or a request key: found by its own index. */
  key?: string;
  job?: string;
  state?: PurchaseState;
  /** The last digits of the phone (3 to 11). */
  phoneEnd?: string;
  /** Created within [from, to). */
  from: Date;
  to: Date;
  /** Page by keyset: purchases with a lower id than this. */
  before?: number;
}

export interface PurchaseListRow {
  id: number;
  state: string;
  source: string;
  job_name: string | null;
  phone: string;
  network: string;
  plan_id: string | null;
  amount: string | null;
  reference: string | null;
  created_at: Date;
  updated_at: Date;
}

const LIST_COLUMNS = sql`id, state, source, job_name, phone, network, plan_id,
  coalesce(charged_amount, amount)::text as amount, reference, created_at, updated_at`;

/**
 * Purchases matching a search, newest first, one page. A key is looked up exactly (id, reference, request key);
 * otherwise the search runs over a range of creation times (the ledger's range index) with the other filters,
 * or over the unsettled states' own index when it asks for one of them.
 */
export async function searchPurchases(db: Executor, search: PurchaseSearch): Promise<PurchaseListRow[]> {
  let found: Raw<PurchaseListRow>[];
  if (search.key !== undefined) {
    const key = search.key;
    const id = /^\d{1,15}$/.test(key) ? Number(key) : null;
    found = await rows<Raw<PurchaseListRow>>(
      db,
      sql`select ${LIST_COLUMNS} from purchases where request_key = ${key}
          union select ${LIST_COLUMNS} from purchases where reference = ${key}
          ${id !== null ? sql`union select ${LIST_COLUMNS} from purchases where id = ${id}` : sql``}
          order by id desc limit ${PAGE_SIZE}`,
    );
  } else {
    const filters: SQL[] = [];
    const unsettled = search.state && ["submitting", "in_doubt", "unverified"].includes(search.state);
    if (!unsettled)
      filters.push(
        sql`created_at >= ${search.from.toISOString()}::timestamptz and created_at < ${search.to.toISOString()}::timestamptz`,
      );
    if (search.state) filters.push(sql`state = ${search.state}`);
    if (search.job) filters.push(sql`job_name = ${search.job}`);
    if (search.phoneEnd) filters.push(sql`right(phone, ${search.phoneEnd.length}) = ${search.phoneEnd}`);
    if (search.before !== undefined) filters.push(sql`id < ${search.before}`);
    // The last digits of a phone match few rows: walking the ids down from the newest would pass every older row
    // looking for fifty, so that search reads the range's rows by the creation-time index first, then orders them.
    const where = sql.join(filters, sql` and `);
    found = await rows<Raw<PurchaseListRow>>(
      db,
      search.phoneEnd && !unsettled
        ? sql`with range as materialized (select ${LIST_COLUMNS} from purchases where ${where})
              select * from range order by id desc limit ${PAGE_SIZE}`
        : sql`select ${LIST_COLUMNS} from purchases where ${where} order by id desc limit ${PAGE_SIZE}`,
    );
  }
  return found.map((r) => ({
    ...r,
    id: Number(r.id),
    created_at: when(r.created_at),
    updated_at: when(r.updated_at),
  }));
}

export interface EventRow {
  id: number;
  at: Date;
  actor: string;
  from_state: string | null;
  to_state: string;
  reason: string | null;
  response: unknown;
}

/** A purchase's events, oldest first (its history is read by its own key), at most `limit`. */
export async function purchaseEvents(db: Executor, id: number, limit: number): Promise<EventRow[]> {
  const found = await rows<Raw<EventRow>>(
    db,
    sql`select id, at, actor, from_state, to_state, reason, response from purchase_events
        where purchase_id = ${id} order by id limit ${limit}`,
  );
  return found.map((r) => ({
    ...r,
    id: Number(r.id),
    at: when(r.at),
    response: typeof r.response === "string" ? safeJson(r.response) : r.response,
  }));
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export interface CandidateNotification {
  id: number;
  received_at: Date;
  status: string | null;
  reference: string | null;
  amount: string | null;
  phone: string | null;
  outcome: string;
}

/** Unmatched notifications that could be an in_doubt purchase (same amount, same last three digits): evidence. */
export async function candidateNotifications(
  db: Executor,
  purchase: { amount: string | null; phone: string },
  limit: number,
): Promise<CandidateNotification[]> {
  if (!purchase.amount) return [];
  const found = await rows<Raw<CandidateNotification>>(
    db,
    sql`select id, received_at, status, reference, amount::text as amount, phone, outcome from provider_notifications n
        where n.outcome = 'unmatched' and n.amount = ${purchase.amount}::numeric
          and right(regexp_replace(coalesce(n.phone, ''), '[^0-9]', '', 'g'), 3) = ${purchase.phone.slice(-3)}
        order by id desc limit ${limit}`,
  );
  return found.map((r) => ({ ...r, id: Number(r.id), received_at: when(r.received_at) }));
}
