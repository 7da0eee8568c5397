// The ledger report as the readable formats show it: what was spent (chart and tables), outcomes, what
// needs a person and the command that settles it, failures by the provider's message, website passes.

import { ZERO } from "../money.js";
import { budgetDay } from "../purchases/guards.js";
import { openPlanBlocks } from "./approvals-view.js";
import {
  type Block,
  type DocSection,
  everyDay,
  left,
  type ReportDocument,
  right,
  table,
  text,
} from "./document.js";
import {
  counted,
  formatAge,
  formatAmount,
  formatInstant,
  formatLatency,
  formatPercent,
  phoneView,
} from "./format.js";
import type { GroupTotal, LedgerReport, SpendDay } from "./ledger-model.js";

export function ledgerDocument(report: LedgerReport, options: { showPhone: boolean }): ReportDocument {
  const at = (d: Date) => formatInstant(d, report.timezone);
  const p = report.purchases;
  const rate = formatPercent(p.successRate.succeeded, p.successRate.settled);
  const facts: ReportDocument["facts"] = [
    ["period", `${at(report.since)} → ${at(report.generatedAt)} (${report.timezone})`],
  ];
  if (report.empty !== "ledger") {
    facts.push(
      ["spent", `${formatAmount(p.spent)} on ${p.successRate.succeeded} succeeded purchases`],
      [
        "success rate",
        rate ? `${rate} (${p.successRate.succeeded} of ${p.successRate.settled} settled)` : "-",
      ],
      ["verification latency", p.latency ? latencyText(p.latency) : "-"],
      ["needs a person", `${counted(report.open.length, "purchase")} in_doubt or unverified`],
      ["website passes", String(report.websites.passes)],
    );
  }
  return {
    title: `topsync report since ${at(report.since)}`,
    facts,
    status: status(report, at),
    sections: sections(report, at, options.showPhone),
  };
}

function latencyText(latency: NonNullable<LedgerReport["purchases"]["latency"]>): string {
  return `p50 ${formatLatency(latency.p50Ms)}, p95 ${formatLatency(latency.p95Ms)} (${counted(latency.samples, "purchase")}, submitted → settled)`;
}

function status(report: LedgerReport, at: (d: Date) => string): ReportDocument["status"] {
  if (report.empty === "ledger") {
    return {
      tone: "note",
      text: "The ledger is empty: topsync has not recorded any purchase or website pass yet.",
    };
  }
  const open = report.open.length;
  const attention =
    open > 0
      ? ` ${counted(open, "purchase")} ${open === 1 ? "needs" : "need"} a person: settle each with the command under "Needs a person".`
      : "";
  if (report.empty === "period") {
    return {
      tone: open > 0 ? "warning" : "note",
      text: `Nothing happened since ${at(report.since)}: no purchases and no website passes.${attention}`,
    };
  }
  if (open > 0) return { tone: "warning", text: attention.trim() };
  return { tone: "ok", text: "Every purchase of the period is settled; none needs a person." };
}

function sections(report: LedgerReport, at: (d: Date) => string, showPhone: boolean): DocSection[] {
  const plans: DocSection[] = report.openPlans?.length
    ? [
        {
          id: "plans",
          title: "Plans awaiting approval or apply",
          blocks: openPlanBlocks(report.openPlans, at),
        },
      ]
    : [];
  return [...ledgerSections(report, at, showPhone), ...plans];
}

function ledgerSections(report: LedgerReport, at: (d: Date) => string, showPhone: boolean): DocSection[] {
  if (report.empty === "ledger") return [];
  const open: DocSection = { id: "open", title: "Needs a person", blocks: openBlocks(report, at, showPhone) };
  if (report.empty === "period") return report.open.length > 0 ? [open] : [];
  const p = report.purchases;
  return [
    { id: "spend", title: "Spend by day", blocks: spendBlocks(p.byDay, report) },
    { id: "networks", title: "By network", blocks: groupBlocks("networks", "Network", p.byNetwork) },
    { id: "jobs", title: "By job", blocks: groupBlocks("jobs", "Job", p.byJob) },
    { id: "outcomes", title: "Outcomes", blocks: outcomeBlocks(report) },
    open,
    { id: "failures", title: "Failures by the provider's message", blocks: failureBlocks(report, showPhone) },
    { id: "websites", title: "Website passes", blocks: passBlocks(report, at) },
    ...scheduleSections(report, at),
    ...notificationSections(report, at),
  ];
}

/** Missed fires and the jobs suspended, paused or resumed in the period, when there are any. */
function scheduleSections(report: LedgerReport, at: (d: Date) => string): DocSection[] {
  const schedules = report.schedules;
  if (!schedules || (schedules.missed.length === 0 && schedules.stateChanges.length === 0)) return [];
  const blocks: Block[] = [];
  if (schedules.stateChanges.length > 0)
    blocks.push(
      table(
        "job-states",
        [left("When"), left("Job"), left("Change"), left("By"), left("Why")],
        schedules.stateChanges.map((e) => [
          at(e.at),
          e.job,
          `${e.from ?? "-"} → ${e.to}`,
          e.actor,
          e.reason ?? "-",
        ]),
      ),
    );
  if (schedules.missed.length > 0) {
    const total = schedules.missedByJob.reduce((n, j) => n + j.missed, 0);
    blocks.push(
      text(
        `${counted(total, "fire")} missed, never run: ${schedules.missedByJob.map((j) => `${j.job} ${j.missed}`).join(", ")} (the newest listed; jobs backfill buys them).`,
      ),
      table(
        "missed-fires",
        [left("Fire"), left("Job"), left("Why")],
        schedules.missed.map((f) => [at(f.fireTime), f.job, f.reason ?? "-"]),
      ),
    );
  }
  return [{ id: "schedules", title: "Schedules: pauses and missed fires", blocks }];
}

/** Notification messages that failed for good, when there are any: a channel to look at. */
function notificationSections(report: LedgerReport, at: (d: Date) => string): DocSection[] {
  const failed = report.notificationsFailed ?? [];
  if (failed.length === 0) return [];
  const blocks: Block[] = [
    text(
      `${counted(failed.length, "notification message")} could not be delivered (topsync notify list --status failed).`,
    ),
    table(
      "notifications",
      [
        right("Id"),
        left("Created"),
        left("Channel"),
        left("Trigger"),
        right("Events"),
        right("Tries"),
        left("Last error"),
      ],
      failed.map((f) => [
        String(f.id),
        at(f.createdAt),
        f.channel,
        f.trigger,
        String(f.events),
        String(f.attempts),
        f.lastError ?? "-",
      ]),
    ),
  ];
  return [{ id: "notifications", title: "Notifications not delivered", blocks }];
}

function spendBlocks(days: SpendDay[], report: LedgerReport): Block[] {
  if (days.length === 0) return [text("Nothing was sent to the reseller in this period.")];
  const p = report.purchases;
  return [
    spendChart(days, report),
    table(
      "spend",
      [
        left("Day"),
        right("Sent"),
        right("Succeeded"),
        right("Spent"),
        right("Unsettled"),
        right("Failed"),
        right("Refunded"),
      ],
      [
        ...days.map((d) => [
          d.day,
          String(d.sent),
          String(d.succeeded),
          formatAmount(d.spent),
          formatAmount(d.unsettled),
          String(d.failed),
          formatAmount(d.refunded),
        ]),
        [
          "total",
          String(days.reduce((n, d) => n + d.sent, 0)),
          String(days.reduce((n, d) => n + d.succeeded, 0)),
          formatAmount(p.spent),
          formatAmount(p.unsettled),
          String(days.reduce((n, d) => n + d.failed, 0)),
          formatAmount(p.refunded),
        ],
      ],
    ),
    text(
      "Unsettled: sent, not known final yet (submitted, unverified or in_doubt); the money may have left the wallet.",
    ),
  ];
}

/**
 * Every day of the period, the quiet ones at zero: what was sent, stacked as succeeded, unsettled and failed
 * (at the prices sent), so a day's bar is all the money that day's purchases asked for.
 */
/** Empty days before the period's first purchase that the daily chart still draws (a month's worth). */
const MAX_EMPTY_LEADING_DAYS = 31;

function spendChart(days: SpendDay[], report: LedgerReport): Block {
  const byDay = new Map(days.map((d) => [d.day, d]));
  const first = days[0]!.day;
  const since = budgetDay(report.since, report.timezone);
  // Every day of the period has its bar, empty ones too, but for a long run of empty days before the first
  // purchase: `--since 100000d` reaches back to 1970, and 20,000 empty bars say nothing.
  const from =
    Date.parse(`${first}T00:00:00Z`) - Date.parse(`${since}T00:00:00Z`) > MAX_EMPTY_LEADING_DAYS * 86_400_000
      ? first
      : [since, first].sort()[0]!;
  const period = everyDay(
    from,
    [budgetDay(report.generatedAt, report.timezone), days.at(-1)!.day].sort().at(-1)!,
  );
  return {
    kind: "chart",
    name: "spend-by-day",
    title: "Spend by day: succeeded, unsettled and failed purchases",
    layers: [
      { name: "succeeded", label: "succeeded" },
      { name: "unsettled", label: "unsettled" },
      { name: "failed", label: "failed" },
    ],
    bars: period.map((day) => {
      const d = byDay.get(day);
      const parts = [d?.spent ?? ZERO, d?.unsettled ?? ZERO, d?.failedAmount ?? ZERO];
      const total = parts.reduce((sum, part) => sum.plus(part), ZERO);
      return {
        label: day,
        value: total,
        text: formatAmount(total),
        parts: parts.map((value) => ({ value, text: formatAmount(value) })),
      };
    }),
    whenEmpty: "Nothing was sent to the reseller on any day of this period.",
  };
}

function groupBlocks(name: string, header: string, groups: GroupTotal[]): Block[] {
  if (groups.length === 0) return [text("Nothing was sent in this period.")];
  return [
    table(
      name,
      [left(header), right("Sent"), right("Succeeded"), right("Failed"), right("Spent"), right("Unsettled")],
      groups.map((g) => [
        g.name,
        String(g.sent),
        String(g.succeeded),
        String(g.failed),
        formatAmount(g.spent),
        formatAmount(g.unsettled),
      ]),
    ),
  ];
}

function outcomeBlocks(report: LedgerReport): Block[] {
  const p = report.purchases;
  const rate = formatPercent(p.successRate.succeeded, p.successRate.settled);
  return [
    table(
      "states",
      [left("State"), right("Purchases"), right("Amount")],
      [
        ...p.byState.map((s) => [s.state, String(s.count), formatAmount(s.amount)]),
        ["total", String(p.total), formatAmount(p.byState.reduce((sum, s) => sum.plus(s.amount), ZERO))],
      ],
    ),
    text(
      rate
        ? `Success rate: ${rate} (${p.successRate.succeeded} succeeded of ${p.successRate.settled} settled as succeeded or failed).`
        : "Success rate: no purchase settled in this period.",
    ),
    text(
      p.latency
        ? `Verification latency: ${latencyText(p.latency)}.`
        : "Verification latency: no purchase settled in this period.",
    ),
  ];
}

function openBlocks(report: LedgerReport, at: (d: Date) => string, showPhone: boolean): Block[] {
  if (report.open.length === 0) return [text("No purchase is in_doubt or unverified.")];
  const view = phoneView(showPhone);
  // The note column (verify_mismatch, price_mismatch, reversed, delivered_after_failure, earlier_attempt_delivered) only
  // when some purchase has one.
  const noted = report.open.some((o) => o.note !== null);
  return [
    text(
      "Every in_doubt and unverified purchase, whatever its age, and every purchase charged above its listed price or reversed by the provider after it succeeded, or delivered and charged for after it failed, or whose attempt before a person requeued it the provider delivered and charged for after all. Check the provider (topsync verify REFERENCE, or its dashboard), then settle:",
      "warning",
    ),
    table(
      "open",
      [
        right("Id"),
        left("State"),
        right("Age"),
        left("Since"),
        left("Job"),
        left("Phone"),
        left("Plan"),
        right("Amount"),
        left("Reference"),
        ...(noted ? [left("Note")] : []),
        left("Settle with"),
      ],
      report.open.map((o) => [
        String(o.id),
        o.state,
        formatAge(o.ageMs),
        at(o.since),
        o.job ?? `(${o.source})`,
        view.phone(o.phone),
        o.plan ?? "-",
        o.amount ? formatAmount(o.amount) : "-",
        o.reference ?? "-",
        ...(noted ? [o.note ? view.text(o.note) : "-"] : []),
        o.settle,
      ]),
    ),
  ];
}

function failureBlocks(report: LedgerReport, showPhone: boolean): Block[] {
  const failures = report.purchases.failures;
  if (failures.length === 0) return [text("No purchase failed in this period.")];
  const view = phoneView(showPhone);
  return [
    table(
      "failures",
      [left("Message"), right("Purchases"), right("Amount"), right("Refunded")],
      failures.map((f) => [
        view.text(f.message),
        String(f.count),
        formatAmount(f.amount),
        formatAmount(f.refunded),
      ]),
    ),
  ];
}

function passBlocks(report: LedgerReport, at: (d: Date) => string): Block[] {
  const w = report.websites;
  if (w.passes === 0) return [text("No website pass in this period.")];
  const statuses = Object.entries(w.byStatus)
    .map(([s, n]) => `${n} ${s}`)
    .join(", ");
  const blocks: Block[] = [
    text(
      `${counted(w.passes, "pass", "passes")} (${statuses}): websites created ${w.created}, updated ${w.updated}, deleted ${w.deleted}.`,
    ),
  ];
  if (w.shown.length === 0) {
    blocks.push(text("Every pass found nothing to do."));
    return blocks;
  }
  blocks.push(
    table(
      "passes",
      [
        right("Id"),
        left("Started"),
        left("Mode"),
        left("Status"),
        right("Created"),
        right("Updated"),
        right("Deleted"),
        left("Changes and errors"),
      ],
      w.shown.map((pass) => [
        String(pass.id),
        at(pass.startedAt),
        pass.mode,
        pass.status,
        String(pass.created),
        String(pass.updated),
        String(pass.deleted),
        [
          ...pass.changes.map((c) => `${pass.mode === "apply" ? "" : "drift: "}${c.action} ${c.domain}`),
          ...pass.errors.map((e) => `error: ${e}`),
        ].join("; ") || "-",
      ]),
    ),
  );
  const quiet = w.passes - w.shown.length;
  if (quiet > 0)
    blocks.push(
      text(`${quiet} other ${quiet === 1 ? "pass is" : "passes are"} not listed (nothing to do, or older).`),
    );
  return blocks;
}
