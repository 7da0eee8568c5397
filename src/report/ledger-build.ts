// The ledger report from the ledger's answers, without I/O: exact amounts, the success rate, the command
// that settles each open purchase, and what each website pass changed.
import { parseMoney, sumMoney } from "../money.js";
import type {
  GroupRow,
  GroupTotal,
  LedgerReport,
  LedgerRows,
  OpenPurchase,
  WebsitePass,
} from "./ledger-model.js";

export function buildLedgerReport(
  data: LedgerRows,
  context: { now: Date; since: Date; timeZone: string },
): LedgerReport {
  const total = data.states.reduce((n, s) => n + s.n, 0);
  const count = (state: string) => data.states.find((s) => s.state === state)?.n ?? 0;
  const byDay = data.days.map((d) => ({
    day: d.day,
    sent: d.sent,
    succeeded: d.succeeded,
    spent: parseMoney(d.spent),
    unsettled: parseMoney(d.unsettled),
    failed: d.failed,
    failedAmount: parseMoney(d.failed_amount),
    refunded: parseMoney(d.refunded),
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
      latency:
        data.latency.n > 0 && data.latency.p50 !== null && data.latency.p95 !== null
          ? { samples: data.latency.n, p50Ms: data.latency.p50, p95Ms: data.latency.p95 }
          : null,
      byDay,
      byNetwork: data.networks.map(group),
      byJob: data.jobs.map(group),
      failures: data.failures.map((f) => ({
        message: f.message,
        count: f.n,
        amount: parseMoney(f.amount),
        refunded: parseMoney(f.refunded),
      })),
    },
    open: data.open.map((row) => openPurchase(row, context.now)),
    websites: {
      passes,
      byStatus: Object.fromEntries(data.passTotals.map((p) => [p.status, p.n])),
      created: data.passTotals.reduce((n, p) => n + p.created, 0),
      updated: data.passTotals.reduce((n, p) => n + p.updated, 0),
      deleted: data.passTotals.reduce((n, p) => n + p.deleted, 0),
      shown: data.passes.map(websitePass),
    },
  };
}

function emptiness(data: LedgerRows, purchases: number, passes: number): LedgerReport["empty"] {
  if (!data.anything.purchases && !data.anything.websiteRuns) return "ledger";
  return purchases === 0 && passes === 0 ? "period" : null;
}

function group(row: GroupRow): GroupTotal {
  return {
    name: row.name,
    sent: row.sent,
    succeeded: row.succeeded,
    failed: row.failed,
    spent: parseMoney(row.spent),
    unsettled: parseMoney(row.unsettled),
  };
}

/** The command that settles a purchase a person must look at: resolve it once its outcome is known. */
export function settleCommand(id: number): string {
  return `topsync purchases resolve ${id} --as succeeded|failed --note "…"`;
}

function openPurchase(row: LedgerRows["open"][number], now: Date): OpenPurchase {
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
    // A succeeded purchase is here for its note; one flagged reference_clash is settled again by a person.
    settle:
      row.state === "succeeded" && !row.note?.startsWith("reference_clash")
        ? `topsync purchases show ${id}`
        : settleCommand(id),
  };
}

function websitePass(row: LedgerRows["passes"][number]): WebsitePass {
  const summary = parsed(row.summary) as { changes?: Array<{ action?: string; domain?: string }> } | null;
  const errors = parsed(row.errors) as Array<{ message?: string }> | null;
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
    changes: (summary?.changes ?? [])
      .filter((c) => c.action !== "unmanaged")
      .map((c) => ({ action: c.action ?? "?", domain: c.domain ?? "?" })),
  };
}

/** jsonb as the drivers give it: parsed already, or a string. */
function parsed(value: unknown): unknown {
  return typeof value === "string" ? JSON.parse(value) : value;
}

/** What a person settling an in_doubt purchase should look at first: notifications that could be it. */
function candidates(count: number, id: number): string | null {
  if (!count) return null;
  const what =
    count === 1 ? "1 unmatched provider notification" : `${count} unmatched provider notifications`;
  return `${what} could be this purchase (topsync purchases show ${id})`;
}
