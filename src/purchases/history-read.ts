// The purchases' history for a report, aggregated in SQL so a big ledger never comes into memory: SELECTs only.
// A purchase belongs to the period by when it was submitted (or created, if it never was); amounts are what the
// provider charged where it said.
import { type SQL, sql } from "drizzle-orm";
import { type Executor, rows } from "../db/client.js";

/** The purchases' history for a report, as read: amounts still decimal strings, times as the driver gave. */
export interface SpendRows {
  anyPurchases: boolean;
  states: Array<{ state: string; n: number; amount: string }>;
  days: Array<{
    day: string;
    sent: number;
    succeeded: number;
    spent: string;
    unsettled: string;
    failed: number;
    /** What the failed purchases would have cost (their refunds are in `refunded`). */
    failed_amount: string;
    refunded: string;
  }>;
  networks: GroupRow[];
  jobs: GroupRow[];
  latency: { n: number; p50: number | null; p95: number | null };
  open: Array<{
    id: number | string;
    state: string;
    job_name: string | null;
    source: string;
    phone: string;
    network: string;
    plan_id: string | null;
    plan_name: string | null;
    amount: string | null;
    reference: string | null;
    note: string | null;
    since: Date | string;
    /** Unmatched provider notifications that could be this purchase (in_doubt only). */
    unmatched_notifications: number;
  }>;
  failures: Array<{ message: string; n: number; amount: string; refunded: string }>;
}

export interface GroupRow {
  key: string;
  name: string;
  sent: number;
  succeeded: number;
  failed: number;
  spent: string;
  unsettled: string;
}

/**
 * A phone number in a provider's message, whole or masked (0803****567), written with spaces, dots or dashes
 * as src/log/mask.ts reads them: one failure, whoever it was for.
 */
const PHONE_PATTERN =
  "(\\+?234[ .-]?(\\(0\\)[ .-]?|0[ .-]?)?|\\(?0)[789][ .-]?[01][ .-]?[0-9*]\\)?([ .-]?[0-9*]){7}";

/**
 * Unmatched provider notifications that could be an in_doubt purchase (same amount, the same last three digits
 * of the phone, which masked numbers still show): evidence for the person who settles it, never proof.
 */
const CANDIDATE_NOTIFICATIONS = sql`(case when p.state = 'in_doubt' then (
    select count(*)::int from provider_notifications n
    where n.outcome = 'unmatched' and n.amount = coalesce(p.charged_amount, p.amount)
      and right(regexp_replace(coalesce(n.phone, ''), '[^0-9]', '', 'g'), 3) = right(p.phone, 3)
  ) else 0 end)`;

const SENT = sql`state in ('submitting', 'submitted', 'succeeded', 'failed', 'in_doubt', 'unverified')`;

export async function readSpendHistory(db: Executor, since: Date, timeZone: string): Promise<SpendRows> {
  const from = since.toISOString();
  const period = sql`coalesce(submitted_at, created_at) >= ${from}::timestamptz`;
  const [anything] = await rows<{ purchases: boolean }>(
    db,
    sql`select exists(select 1 from purchases) as purchases`,
  );
  return {
    anyPurchases: anything?.purchases === true,
    states: await rows(
      db,
      sql`select state, count(*)::int as n, coalesce(sum(coalesce(charged_amount, amount)), 0)::text as amount
          from purchases where ${period} group by state order by state`,
    ),
    days: await rows(
      db,
      sql`select coalesce(budget_day::text,
                   to_char(coalesce(submitted_at, created_at) at time zone ${timeZone}, 'YYYY-MM-DD')) as day,
            ${groupColumns}, count(*) filter (where state = 'failed')::int as failed,
            coalesce(sum(coalesce(charged_amount, amount)) filter (where state = 'failed'), 0)::text as failed_amount,
            coalesce(sum(refund_amount) filter (where state = 'failed'), 0)::text as refunded
          from purchases where ${period} and ${SENT} group by 1 order by 1`,
    ),
    networks: await groupBy(db, period, NETWORK, sql`mode() within group (order by upper(network))`),
    jobs: await groupBy(db, period, JOB, sql`min(${JOB})`),
    latency: await latency(db, period),
    open: await rows(
      db,
      sql`select id, state, job_name, source, phone, network, plan_id, plan_name,
            coalesce(charged_amount, amount)::text as amount, reference, note,
            coalesce(submitted_at, updated_at) as since, ${CANDIDATE_NOTIFICATIONS} as unmatched_notifications
          from purchases p where state in ('in_doubt', 'unverified') or (note like 'price_mismatch%' and ${period})
          order by id`,
    ),
    failures: await rows(
      db,
      sql`select regexp_replace(coalesce(nullif(provider_message, ''), reason, '(no message)'), ${PHONE_PATTERN}, '<phone>', 'g')
            as message, count(*)::int as n,
            coalesce(sum(coalesce(charged_amount, amount)), 0)::text as amount, coalesce(sum(refund_amount), 0)::text as refunded
          from purchases where ${period} and state = 'failed' group by 1 order by 2 desc, 1`,
    ),
  };
}

const groupColumns = sql`count(*)::int as sent, count(*) filter (where state = 'succeeded')::int as succeeded,
  coalesce(sum(coalesce(charged_amount, amount)) filter (where state = 'succeeded'), 0)::text as spent,
  coalesce(sum(coalesce(charged_amount, amount)) filter (where state in ('submitting', 'submitted', 'unverified', 'in_doubt')), 0)::text as unsettled`;

/** A network by its resolved id (named by the most common way it was asked for), else as asked for. */
const NETWORK = sql`coalesce(network_id, upper(network))`;
/** A job by name; purchases of other sources as "(intake)" or "(buy)". */
const JOB = sql`coalesce(job_name, '(' || source || ')')`;

/** Purchases sent in the period grouped by `key`. */
function groupBy(db: Executor, period: SQL, key: SQL, name: SQL): Promise<GroupRow[]> {
  return rows<GroupRow>(
    db,
    sql`select ${key} as key, ${name} as name,
          ${groupColumns}, count(*) filter (where state = 'failed')::int as failed
        from purchases where ${period} and ${SENT} group by 1 order by 1`,
  );
}

/** p50 and p95 of submitted → settled over the purchases that settled in the period, in milliseconds. */
async function latency(db: Executor, period: SQL): Promise<SpendRows["latency"]> {
  const seconds = sql`extract(epoch from (settled_at - submitted_at))::float8`;
  const [row] = await rows<{ n: number; p50: number | string | null; p95: number | string | null }>(
    db,
    sql`select count(*)::int as n,
          (percentile_cont(0.5) within group (order by ${seconds}) * 1000)::float8 as p50,
          (percentile_cont(0.95) within group (order by ${seconds}) * 1000)::float8 as p95
        from purchases
        where ${period} and state in ('succeeded', 'failed')
          and submitted_at is not null and settled_at is not null and settled_at >= submitted_at`,
  );
  const number = (v: number | string | null | undefined) =>
    v === null || v === undefined ? null : Number(v);
  return { n: row?.n ?? 0, p50: number(row?.p50), p95: number(row?.p95) };
}
