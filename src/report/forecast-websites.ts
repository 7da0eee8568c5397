// The website part of the combined plan: the reconciler's own plan (src/websites/plan.ts) as a table of
// changes and its summary line; write-only values only ever show as "(sensitive)".
import type { Diff, FieldValue, PlanEntry } from "../websites/model.js";
import { distrustLines, summaryLine } from "../websites/render.js";
import { type Block, left, table, text } from "./document.js";
import type { Forecast } from "./forecast-model.js";

export function websiteBlocks(report: Forecast): Block[] {
  if (!report.websites) {
    const why =
      report.unknown.find((u) => u.part === "websites")?.reason ?? "the remote listing could not be read";
    return [text(`Unknown: ${why}. Nothing about the websites is planned.`, "error")];
  }
  const { plan, refusal } = report.websites;
  const shown = plan.entries.filter((entry) => entry.action !== "noop");
  const blocks: Block[] = [];
  // A listing not trusted (one that hid an owned website, or shows none of them) says why beside its plan.
  const distrust = distrustLines(plan);
  if (distrust.length > 0) blocks.push(text(distrust.join(" "), "warning"));
  if (shown.length === 0) blocks.push(text("No changes: the analytics websites match the declared list."));
  else {
    blocks.push(
      table(
        "websites",
        [left("Action"), left("Domain"), left("Id"), left("Detail")],
        shown.map((entry) => [entry.action, entry.domain, ids(entry), detail(entry)]),
      ),
    );
  }
  if (refusal) blocks.push(text(`${refusal.message}.`, "warning"));
  blocks.push(text(summaryLine(plan.summary)));
  return blocks;
}

function ids(entry: PlanEntry): string {
  if ("ids" in entry) return entry.ids.join(", ");
  return "id" in entry ? String(entry.id) : "-";
}

function detail(entry: PlanEntry): string {
  if (entry.action === "create")
    return [entry.reason, diffText(entry.diff, false)].filter(Boolean).join("; ");
  if (entry.action === "update") return diffText(entry.diff, true);
  return "reason" in entry ? (entry.reason ?? "") : "";
}

function diffText(diff: Diff, withFrom: boolean): string {
  return Object.entries(diff)
    .map(([field, change]) =>
      withFrom ? `${field}: ${show(change!.from)} → ${show(change!.to)}` : `${field}: ${show(change!.to)}`,
    )
    .join("; ");
}

function show(value: FieldValue): string {
  if (value === null) return "(none)";
  if (value === "(sensitive)") return value;
  return Array.isArray(value) ? `[${value.join(", ")}]` : String(value);
}
