// The ledger report as JSON, format_version "1" (documented in README "Reports"): snake_case keys, ISO
// instants, amounts as exact decimal strings in `currency`, phones masked unless --show-phone.

import type { Money } from "../money.js";
import { openPlansJson } from "./approvals-view.js";
import { CURRENCY, phoneView } from "./format.js";
import type { GroupTotal, LedgerReport } from "./ledger-model.js";
import { REPORT_FORMAT_VERSION } from "./render.js";

export function ledgerJson(report: LedgerReport, options: { showPhone: boolean }) {
  const view = phoneView(options.showPhone);
  const p = report.purchases;
  return {
    format_version: REPORT_FORMAT_VERSION,
    kind: "report",
    generated_at: report.generatedAt.toISOString(),
    since: report.since.toISOString(),
    timezone: report.timezone,
    currency: CURRENCY,
    empty: report.empty,
    purchases: {
      total: p.total,
      by_state: p.byState.map((s) => ({ state: s.state, count: s.count, amount: money(s.amount) })),
      spent: money(p.spent),
      unsettled: money(p.unsettled),
      refunded: money(p.refunded),
      success_rate: {
        succeeded: p.successRate.succeeded,
        settled: p.successRate.settled,
        percent:
          p.successRate.settled === 0
            ? null
            : Math.round((p.successRate.succeeded * 1000) / p.successRate.settled) / 10,
      },
      verification_latency_ms: p.latency
        ? { samples: p.latency.samples, p50: Math.round(p.latency.p50Ms), p95: Math.round(p.latency.p95Ms) }
        : null,
      by_day: p.byDay.map((d) => ({
        day: d.day,
        sent: d.sent,
        succeeded: d.succeeded,
        spent: money(d.spent),
        unsettled: money(d.unsettled),
        failed: d.failed,
        refunded: money(d.refunded),
      })),
      by_network: p.byNetwork.map(group("network")),
      by_job: p.byJob.map(group("job")),
      failures: p.failures.map((f) => ({
        message: view.text(f.message),
        count: f.count,
        amount: money(f.amount),
        refunded: money(f.refunded),
      })),
    },
    open: report.open.map((o) => ({
      id: o.id,
      state: o.state,
      age_ms: o.ageMs,
      since: o.since.toISOString(),
      job: o.job,
      source: o.source,
      phone: view.phone(o.phone),
      network: o.network,
      plan: o.plan,
      amount: o.amount ? money(o.amount) : null,
      reference: o.reference,
      note: o.note === null ? null : view.text(o.note),
      settle: o.settle,
    })),
    open_plans: openPlansJson(report.openPlans ?? []),
    websites: {
      passes: report.websites.passes,
      by_status: report.websites.byStatus,
      created: report.websites.created,
      updated: report.websites.updated,
      deleted: report.websites.deleted,
      shown: report.websites.shown.map((pass) => ({
        id: pass.id,
        started_at: pass.startedAt.toISOString(),
        finished_at: pass.finishedAt ? pass.finishedAt.toISOString() : null,
        mode: pass.mode,
        status: pass.status,
        created: pass.created,
        updated: pass.updated,
        deleted: pass.deleted,
        unchanged: pass.unchanged,
        unmanaged: pass.unmanaged,
        conflicts: pass.conflicts,
        errors: pass.errors,
        changes: pass.changes,
      })),
    },
    schedules: {
      missed_by_job: report.schedules?.missedByJob ?? [],
      missed_fires: (report.schedules?.missed ?? []).map((f) => ({
        job: f.job,
        fire_time: f.fireTime.toISOString(),
        reason: f.reason,
      })),
      state_changes: (report.schedules?.stateChanges ?? []).map((e) => ({
        job: e.job,
        at: e.at.toISOString(),
        actor: e.actor,
        from: e.from,
        to: e.to,
        reason: e.reason,
      })),
    },
    notifications_failed: (report.notificationsFailed ?? []).map((f) => ({
      id: f.id,
      channel: f.channel,
      trigger: f.trigger,
      events: f.events,
      attempts: f.attempts,
      created_at: f.createdAt.toISOString(),
      last_error: f.lastError,
    })),
  };
}

function group(key: "network" | "job") {
  return (g: GroupTotal) => ({
    [key]: g.name,
    sent: g.sent,
    succeeded: g.succeeded,
    failed: g.failed,
    spent: money(g.spent),
    unsettled: money(g.unsettled),
  });
}

function money(value: Money): string {
  return value.toFixed(2);
}
