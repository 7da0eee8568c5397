import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  rows
} from "./chunk-BH4POYA2.js";
import "./chunk-3SYTADOT.js";
import {
  parseMoney,
  sumMoney
} from "./chunk-57HFVDAX.js";
import "./chunk-TULZGMTI.js";
import {
  sql
} from "./chunk-FBKOPLBK.js";
import "./chunk-V4RWK56N.js";

// dist/purchases/history-read.js
var PHONE_PATTERN = "(\\+?234[ .-]?(\\(0\\)[ .-]?|0[ .-]?)?|\\(?0)[789][ .-]?[01][ .-]?[0-9*]\\)?([ .-]?[0-9*]){7}";
var CANDIDATE_NOTIFICATIONS = sql`(case when p.state = 'in_doubt' then (
    select count(*)::int from provider_notifications n
    where n.outcome = 'unmatched' and n.amount = coalesce(p.charged_amount, p.amount)
      and right(regexp_replace(coalesce(n.phone, ''), '[^0-9]', '', 'g'), 3) = right(p.phone, 3)
  ) else 0 end)`;
var SENT = sql`state in ('submitting', 'submitted', 'succeeded', 'failed', 'in_doubt', 'unverified')`;
async function readSpendHistory(db, since, timeZone) {
  const from = since.toISOString();
  const period = sql`coalesce(submitted_at, created_at) >= ${from}::timestamptz`;
  const [anything] = await rows(db, sql`select exists(select 1 from purchases) as purchases`);
  return {
    anyPurchases: anything?.purchases === true,
    states: await rows(db, sql`select state, count(*)::int as n, coalesce(sum(coalesce(charged_amount, amount)), 0)::text as amount
          from purchases where ${period} group by state order by state`),
    days: await rows(db, sql`select coalesce(budget_day::text,
                   to_char(coalesce(submitted_at, created_at) at time zone ${timeZone}, 'YYYY-MM-DD')) as day,
            ${groupColumns}, count(*) filter (where state = 'failed')::int as failed,
            coalesce(sum(coalesce(charged_amount, amount)) filter (where state = 'failed'), 0)::text as failed_amount,
            coalesce(sum(refund_amount) filter (where state = 'failed'), 0)::text as refunded
          from purchases where ${period} and ${SENT} group by 1 order by 1`),
    networks: await groupBy(db, period, NETWORK, sql`mode() within group (order by upper(network))`),
    jobs: await groupBy(db, period, JOB, sql`min(${JOB})`),
    latency: await latency(db, period),
    open: await rows(db, sql`select id, state, job_name, source, phone, network, plan_id, plan_name,
            coalesce(charged_amount, amount)::text as amount, reference, note,
            coalesce(submitted_at, updated_at) as since, ${CANDIDATE_NOTIFICATIONS} as unmatched_notifications
          from purchases p where state in ('in_doubt', 'unverified') or (note like 'price_mismatch%' and ${period})
          order by id`),
    failures: await rows(db, sql`select regexp_replace(coalesce(nullif(provider_message, ''), reason, '(no message)'), ${PHONE_PATTERN}, '<phone>', 'g')
            as message, count(*)::int as n,
            coalesce(sum(coalesce(charged_amount, amount)), 0)::text as amount, coalesce(sum(refund_amount), 0)::text as refunded
          from purchases where ${period} and state = 'failed' group by 1 order by 2 desc, 1`)
  };
}
var groupColumns = sql`count(*)::int as sent, count(*) filter (where state = 'succeeded')::int as succeeded,
  coalesce(sum(coalesce(charged_amount, amount)) filter (where state = 'succeeded'), 0)::text as spent,
  coalesce(sum(coalesce(charged_amount, amount)) filter (where state in ('submitting', 'submitted', 'unverified', 'in_doubt')), 0)::text as unsettled`;
var NETWORK = sql`coalesce(network_id, upper(network))`;
var JOB = sql`coalesce(job_name, '(' || source || ')')`;
function groupBy(db, period, key, name) {
  return rows(db, sql`select ${key} as key, ${name} as name,
          ${groupColumns}, count(*) filter (where state = 'failed')::int as failed
        from purchases where ${period} and ${SENT} group by 1 order by 1`);
}
async function latency(db, period) {
  const seconds = sql`extract(epoch from (settled_at - submitted_at))::float8`;
  const [row] = await rows(db, sql`select count(*)::int as n,
          (percentile_cont(0.5) within group (order by ${seconds}) * 1000)::float8 as p50,
          (percentile_cont(0.95) within group (order by ${seconds}) * 1000)::float8 as p95
        from purchases
        where ${period} and state in ('succeeded', 'failed')
          and submitted_at is not null and settled_at is not null and settled_at >= submitted_at`);
  const number = (v) => v === null || v === void 0 ? null : Number(v);
  return { n: row?.n ?? 0, p50: number(row?.p50), p95: number(row?.p95) };
}

// dist/websites/runs-read.js
var PASSES_SHOWN = 50;
async function readPassHistory(db, since) {
  const from = since.toISOString();
  const [anything] = await rows(db, sql`select exists(select 1 from website_runs) as runs`);
  return {
    anyRuns: anything?.runs === true,
    passTotals: await rows(db, sql`select status, count(*)::int as n, coalesce(sum(created), 0)::int as created,
            coalesce(sum(updated), 0)::int as updated, coalesce(sum(deleted), 0)::int as deleted
          from website_runs where started_at >= ${from}::timestamptz group by status order by status`),
    passes: await rows(db, sql`select id, started_at, finished_at, mode, status, created, updated, deleted, unchanged, unmanaged, conflicts,
            errors, summary
          from website_runs
          where started_at >= ${from}::timestamptz
            and (created + updated + deleted > 0 or status <> 'ok'
                 or exists (select 1 from jsonb_array_elements(coalesce(summary -> 'changes', '[]'::jsonb)) c
                            where c ->> 'action' <> 'unmanaged'))
          order by started_at desc, id desc limit ${PASSES_SHOWN}`)
  };
}

// dist/report/ledger-build.js
function buildLedgerReport(data, context) {
  const total = data.states.reduce((n, s) => n + s.n, 0);
  const count = (state) => data.states.find((s) => s.state === state)?.n ?? 0;
  const byDay = data.days.map((d) => ({
    day: d.day,
    sent: d.sent,
    succeeded: d.succeeded,
    spent: parseMoney(d.spent),
    unsettled: parseMoney(d.unsettled),
    failed: d.failed,
    failedAmount: parseMoney(d.failed_amount),
    refunded: parseMoney(d.refunded)
  }));
  const passes = data.passTotals.reduce((n, p) => n + p.n, 0);
  return {
    generatedAt: context.now,
    since: context.since,
    timezone: context.timeZone,
    empty: emptiness(data, total, passes),
    purchases: {
      total,
      byState: data.states.map((s) => ({ state: s.state, count: s.n, amount: parseMoney(s.amount) })),
      spent: sumMoney(byDay.map((d) => d.spent)),
      unsettled: sumMoney(byDay.map((d) => d.unsettled)),
      refunded: sumMoney(byDay.map((d) => d.refunded)),
      successRate: { succeeded: count("succeeded"), settled: count("succeeded") + count("failed") },
      latency: data.latency.n > 0 && data.latency.p50 !== null && data.latency.p95 !== null ? { samples: data.latency.n, p50Ms: data.latency.p50, p95Ms: data.latency.p95 } : null,
      byDay,
      byNetwork: data.networks.map(group),
      byJob: data.jobs.map(group),
      failures: data.failures.map((f) => ({
        message: f.message,
        count: f.n,
        amount: parseMoney(f.amount),
        refunded: parseMoney(f.refunded)
      }))
    },
    open: data.open.map((row) => openPurchase(row, context.now)),
    websites: {
      passes,
      byStatus: Object.fromEntries(data.passTotals.map((p) => [p.status, p.n])),
      created: data.passTotals.reduce((n, p) => n + p.created, 0),
      updated: data.passTotals.reduce((n, p) => n + p.updated, 0),
      deleted: data.passTotals.reduce((n, p) => n + p.deleted, 0),
      shown: data.passes.map(websitePass)
    }
  };
}
function emptiness(data, purchases, passes) {
  if (!data.anything.purchases && !data.anything.websiteRuns)
    return "ledger";
  return purchases === 0 && passes === 0 ? "period" : null;
}
function group(row) {
  return {
    name: row.name,
    sent: row.sent,
    succeeded: row.succeeded,
    failed: row.failed,
    spent: parseMoney(row.spent),
    unsettled: parseMoney(row.unsettled)
  };
}
function settleCommand(id) {
  return `topsync purchases resolve ${id} --as succeeded|failed --note "\u2026"`;
}
function openPurchase(row, now) {
  const since = new Date(row.since);
  const id = Number(row.id);
  return {
    id,
    state: row.state,
    job: row.job_name,
    source: row.source,
    phone: row.phone,
    network: row.network,
    plan: row.plan_id ? `${row.plan_id}${row.plan_name ? ` ${row.plan_name}` : ""}` : null,
    amount: row.amount === null ? null : parseMoney(row.amount),
    reference: row.reference,
    note: row.note ?? candidates(row.unmatched_notifications, id),
    since,
    ageMs: Math.max(0, now.getTime() - since.getTime()),
    settle: row.state === "succeeded" ? `topsync purchases show ${id}` : settleCommand(id)
  };
}
function websitePass(row) {
  const summary = parsed(row.summary);
  const errors = parsed(row.errors);
  return {
    id: Number(row.id),
    startedAt: new Date(row.started_at),
    finishedAt: row.finished_at ? new Date(row.finished_at) : null,
    mode: row.mode,
    status: row.status,
    created: row.created,
    updated: row.updated,
    deleted: row.deleted,
    unchanged: row.unchanged,
    unmanaged: row.unmanaged,
    conflicts: row.conflicts,
    errors: (errors ?? []).map((e) => e.message ?? "(no message)"),
    changes: (summary?.changes ?? []).filter((c) => c.action !== "unmanaged").map((c) => ({ action: c.action ?? "?", domain: c.domain ?? "?" }))
  };
}
function parsed(value) {
  return typeof value === "string" ? JSON.parse(value) : value;
}
function candidates(count, id) {
  if (!count)
    return null;
  const what = count === 1 ? "1 unmatched provider notification" : `${count} unmatched provider notifications`;
  return `${what} could be this purchase (topsync purchases show ${id})`;
}

// dist/report/ledger.js
async function makeLedgerReport(db, period) {
  const { anyPurchases, ...spend } = await readSpendHistory(db, period.since, period.timeZone);
  const { anyRuns, ...passes } = await readPassHistory(db, period.since);
  const anything = { purchases: anyPurchases, websiteRuns: anyRuns };
  return buildLedgerReport({ ...spend, ...passes, anything }, period);
}
export {
  makeLedgerReport
};
