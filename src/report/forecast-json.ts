// The plan as JSON, format_version "1" (documented in README "Reports"): snake_case keys, instants as ISO
// strings, amounts as exact decimal strings in `currency`, phones masked unless --show-phone.

import type { Money } from "../money.js";
import type {
  NetworkTotal,
  ProjectedItem,
  ProjectedRun,
  PurchaseProjection,
} from "../purchases/projection.js";
import { planJson as websitePlanJson } from "../websites/render.js";
import { approvalsJson } from "./approvals-view.js";
import type { Forecast } from "./forecast-model.js";
import { CURRENCY, type PhoneView, phoneView } from "./format.js";
import { REPORT_FORMAT_VERSION } from "./render.js";

export function forecastJson(report: Forecast, options: { showPhone: boolean }) {
  const view = phoneView(options.showPhone);
  const p = report.purchases;
  return {
    format_version: REPORT_FORMAT_VERSION,
    kind: "plan",
    generated_at: report.generatedAt.toISOString(),
    window: { from: report.from.toISOString(), to: report.to.toISOString() },
    timezone: report.timezone,
    currency: CURRENCY,
    complete: report.complete,
    unknown: report.unknown,
    pending: report.pending,
    purchases: {
      totals: totalsJson(p.totals),
      jobs: p.jobs.map((j) => ({
        job: j.job,
        enabled: j.enabled,
        schedule: j.schedule,
        at: iso(j.at),
        timezone: j.timezone,
        requested: j.requested,
        network: j.network,
        plan_id: j.planId,
        plan_name: j.planName,
        price: money(j.price),
        max_price: money(j.maxPrice),
        status: j.status,
        reason: j.reason ?? null,
        fires: j.fires.map((f) => f.toISOString()),
        next_fire: iso(j.nextFire),
        will_not_fire: j.willNotFire,
        state: j.state,
        state_note: j.stateNote,
        fires_bought: j.state === "active",
      })),
      runs: p.runs.map(runJson(view)),
      by_network: p.byNetwork.map(networkJson),
      by_day: p.byDay.map((d) => ({
        day: d.day,
        committed: money(d.committed),
        projected: money(d.projected),
        count: d.count,
        daily_limit: money(d.dailyLimit),
        headroom: money(d.headroom),
        runs_out_at: d.runsOutAt,
      })),
      budget: {
        daily_limit: money(p.budget.dailyLimit),
        per_run_limit: money(p.budget.perRunLimit),
        min_wallet_balance: money(p.budget.minWalletBalance),
      },
      wallet: {
        balance: money(p.wallet.balance),
        as_of: iso(p.wallet.asOf),
        in_flight: money(p.wallet.inFlight),
        projected_spend: money(p.wallet.projectedSpend),
        projected_balance: money(p.wallet.projectedBalance),
        min_wallet_balance: money(p.wallet.minBalance),
        headroom: money(p.wallet.headroom),
        runs_out_at: p.wallet.runsOutAt,
      },
      prices: {
        recorded_at: iso(p.prices.recordedAt),
        changes: p.prices.changes.map((c) => ({
          network: c.network,
          plan_id: c.planId,
          name: c.name,
          from: money(c.from),
          to: money(c.to),
        })),
        other_changes: p.prices.otherChanges,
      },
      above_max: p.aboveMax,
      unusable_plans: p.unusablePlans.map((u) => ({
        network: u.network,
        plan_id: u.planId,
        reason: u.reason,
      })),
      items: p.items.map(itemJson(view)),
      items_omitted: p.itemsOmitted,
    },
    websites: report.websites ? websitesJson(report) : null,
    approvals: report.approvals ? approvalsJson(report.approvals) : null,
  };
}

/** A dry run (`purchases run --dry-run --json`): the projection in the forecast's own shapes. */
export function projectionJson(p: PurchaseProjection, options: { showPhone: boolean }) {
  const view = phoneView(options.showPhone);
  return {
    format_version: REPORT_FORMAT_VERSION,
    kind: "dry_run",
    currency: CURRENCY,
    totals: totalsJson(p.totals),
    by_network: p.byNetwork.map(networkJson),
    runs: p.runs.map(runJson(view)),
    items: p.items.map(itemJson(view)),
    items_omitted: p.itemsOmitted,
  };
}

function totalsJson(t: PurchaseProjection["totals"]) {
  return {
    to_buy: t.toBuy,
    cost: money(t.cost),
    rejected: t.rejected,
    existing: t.existing,
    duplicates: t.duplicates,
    unknown: t.unknown,
  };
}

function networkJson(n: NetworkTotal) {
  return { network: n.network, count: n.count, cost: money(n.cost) };
}

function runJson(view: PhoneView) {
  return (r: ProjectedRun) => ({
    index: r.index,
    kind: r.kind,
    time: r.time.toISOString(),
    day: r.day,
    job: r.job,
    fire_time: iso(r.fireTime),
    error: r.error === undefined ? null : view.text(r.error),
    candidates: r.candidates,
    to_buy: r.toBuy,
    rejected: r.rejected,
    existing: r.existing,
    duplicates: r.duplicates,
    unknown: r.unknown,
    cost: money(r.cost),
    weighed: money(r.weighed),
    refused_by: r.refusedBy,
  });
}

/** One candidate and its outcome, as every command's JSON shows it. */
export function itemJson(view: PhoneView) {
  return (i: ProjectedItem) => ({
    run: i.run,
    request_key: view.text(i.request_key),
    source: i.source,
    job: i.job,
    phone: view.phone(i.phone),
    network: i.network,
    plan: i.plan,
    amount: money(i.amount),
    outcome: i.outcome,
    code: i.code ?? null,
    reason: i.reason === undefined ? null : view.text(i.reason),
  });
}

function websitesJson(report: Forecast) {
  const { format_version: _, ...rest } = websitePlanJson(report.websites!.plan, report.websites!.refusal);
  return rest;
}

function money(value: Money | null): string | null {
  return value ? value.toFixed(2) : null;
}

function iso(value: Date | null): string | null {
  return value ? value.toISOString() : null;
}
