// The plan as the readable formats show it: status first (incomplete, pending or nothing to do), then the
// jobs, the runs due, totals, budget by day, wallet, prices, rejected recipients and the website plan.
import { formatDuration } from "../duration.js";
import { summaryLine } from "../websites/render.js";
import { approvalBlocks } from "./approvals-view.js";
import { type Block, type DocSection, left, type ReportDocument, table, text } from "./document.js";
import type { Forecast } from "./forecast-model.js";
import { budgetBlocks, priceBlocks, walletBlocks } from "./forecast-money-blocks.js";
import { jobBlocks, networkBlocks, runBlocks, runLabel } from "./forecast-purchase-blocks.js";
import { websiteBlocks } from "./forecast-websites.js";
import { counted, formatAmount, formatInstant, type PhoneView, phoneView } from "./format.js";

export function forecastDocument(report: Forecast, options: { showPhone: boolean }): ReportDocument {
  const view = phoneView(options.showPhone);
  const at = (d: Date) => formatInstant(d, report.timezone);
  const p = report.purchases;
  const sections: DocSection[] = [];
  if (!report.complete) sections.push(unknownSection(report));
  sections.push(
    { id: "jobs", title: "Jobs", blocks: jobBlocks(p.jobs, at) },
    { id: "runs", title: "Purchases due", blocks: runBlocks(report, at, view) },
    { id: "networks", title: "Totals by network", blocks: networkBlocks(p) },
    { id: "budget", title: "Budget by day", blocks: budgetBlocks(report, at) },
    { id: "wallet", title: "Wallet", blocks: walletBlocks(report, at) },
    { id: "prices", title: "Prices", blocks: priceBlocks(p, at) },
    { id: "rejected", title: "Recipients that would be rejected", blocks: rejectedBlocks(report, at, view) },
    { id: "websites", title: "Websites", blocks: websiteBlocks(report) },
  );
  if (report.approvals)
    sections.push({
      id: "approvals",
      title: "Approvals",
      blocks: approvalBlocks(report.approvals, (run) => runLabel(p.runs[run]!, at), at),
    });
  return {
    title: `topsync plan: the next ${windowText(report.to.getTime() - report.from.getTime())}`,
    facts: [
      ["window", `${at(report.from)} → ${at(report.to)} (${report.timezone})`],
      ["would buy", wouldBuy(report)],
      ["would not buy", `${p.totals.rejected} rejected, ${counted(p.totals.duplicates, "duplicate")}`],
      [
        "websites",
        report.websites ? summaryLine(report.websites.plan.summary).replace(/^Plan: /, "") : "unknown",
      ],
    ],
    status: status(report),
    sections,
  };
}

function wouldBuy(report: Forecast): string {
  if (report.unknown.some((u) => u.part === "purchases")) return "unknown: the reseller could not be read";
  const t = report.purchases.totals;
  const unknown = t.unknown > 0 ? `, and ${t.unknown} unknown` : "";
  return `${counted(t.toBuy, "purchase")} for ${formatAmount(t.cost)}${unknown}`;
}

/** "24h" for a day or two (as operators write it), else the shortest form: "7d", "1h30m". */
function windowText(ms: number): string {
  return ms % 3_600_000 === 0 && ms <= 48 * 3_600_000 ? `${ms / 3_600_000}h` : formatDuration(ms);
}

function status(report: Forecast): ReportDocument["status"] {
  if (!report.complete) {
    const parts = report.unknown.map((u) => u.part).join(", ");
    return {
      tone: "error",
      text: `this plan is incomplete: ${parts} could not be known (see "Unknown"). Do not treat it as the whole plan. Nothing was bought or changed.`,
    };
  }
  const p = report.purchases;
  const changes = report.websites ? websiteChanges(report) : 0;
  if (!report.pending) {
    return {
      tone: "ok",
      text: "Nothing to do in this window: no purchase would be bought and no website changed.",
    };
  }
  return {
    tone: "note",
    text: `Dry run, nothing was bought or changed: ${counted(p.totals.toBuy, "purchase")} for ${formatAmount(p.totals.cost)} and ${counted(changes, "website change")} are pending.`,
  };
}

function websiteChanges(report: Forecast): number {
  const s = report.websites!.plan.summary;
  return s.create + s.update + s.delete;
}

function unknownSection(report: Forecast): DocSection {
  return {
    id: "unknown",
    title: "Unknown",
    blocks: [
      text(
        "These parts could not be read, so the plan below leaves them out or marks them unknown:",
        "error",
      ),
      table(
        "unknown",
        [left("Part"), left("Why")],
        report.unknown.map((u) => [u.part, u.reason]),
      ),
    ],
  };
}

function rejectedBlocks(report: Forecast, at: (d: Date) => string, view: PhoneView): Block[] {
  const rejected = report.purchases.items.filter((i) => i.outcome === "reject" || i.outcome === "duplicate");
  const omitted = report.purchases.itemsOmitted;
  const more =
    omitted > 0
      ? [text(`Only the first candidates are listed: ${omitted} more are counted in the totals.`)]
      : [];
  if (rejected.length === 0) return [text("None."), ...more];
  return [
    ...more,
    table(
      "rejected",
      [left("Phone"), left("Run"), left("Code"), left("Why")],
      rejected.map((item) => [
        view.phone(item.phone),
        runLabel(report.purchases.runs[item.run]!, at),
        item.code ?? "",
        view.text(item.reason ?? ""),
      ]),
    ),
  ];
}
