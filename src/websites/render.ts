// How a website plan and an apply read: text in the manner of Terraform (`+` create, `~` update, `-` delete,
// a summary line) and the JSON plan (format_version "1"). Write-only values only ever appear as "(sensitive)";
// what the service sent (domains, values, its messages) is shown inert: no control character reaches the terminal.

import { inert } from "../text/inert.js";
import type { ApplyResult } from "./apply.js";
import type { DeleteRefusal } from "./guards.js";
import type { Diff, FieldValue, Plan, PlanEntry, PlanSummary } from "./model.js";

export const PLAN_FORMAT_VERSION = "1";

const MARK = { create: "+", update: "~", delete: "-" } as const;

export function renderPlanText(plan: Plan, refusal?: DeleteRefusal): string {
  const out: string[] = [];
  const distrust = distrustLines(plan);
  if (distrust.length > 0) out.push(...distrust, "");
  const changes = plan.entries.filter(
    (e) => e.action === "create" || e.action === "update" || e.action === "delete",
  );
  if (changes.length > 0) {
    out.push("topsync will make these changes to the analytics websites:", "");
    for (const entry of changes) out.push(...changeLines(entry), "");
  } else {
    out.push("No changes: the analytics websites match the declared list.", "");
  }
  out.push(...apart(plan, "unmanaged", "Unmanaged (not touched)"));
  out.push(...apart(plan, "conflict", "Conflicts (not touched)"));
  out.push(...apart(plan, "withheld", "Withheld (not created or deleted in this pass)"));
  if (refusal) out.push(`Warning: ${refusal.message}.`, "");
  out.push(summaryLine(plan.summary));
  return `${out.join("\n")}\n`;
}

/** Why a plan creates and deletes nothing, when its listing is not trusted (none when it is). */
export function distrustLines(plan: Plan): string[] {
  if (plan.remote.vanished) return [`NOT TRUSTED: ${plan.remote.problem}.`];
  if (plan.remote.complete) return [];
  return [
    `INCOMPLETE: the remote listing was incomplete (${plan.remote.problem ?? "the pages disagreed"}).`,
    "No website is created or deleted from it; updates of the websites it shows go ahead.",
  ];
}

export function summaryLine(summary: PlanSummary): string {
  const withheld = summary.withheld > 0 ? `, ${summary.withheld} withheld` : "";
  return `Plan: ${summary.create} to create, ${summary.update} to update, ${summary.delete} to delete, ${summary.unchanged} unchanged${withheld}.`;
}

function changeLines(entry: PlanEntry): string[] {
  if (entry.action === "create") {
    const declared = entry.declared_domain ? ` (declared as ${JSON.stringify(entry.declared_domain)})` : "";
    const why = entry.reason ? [`      # ${inert(entry.reason)}`] : [];
    return [`  + create ${inert(entry.domain)}${declared}`, ...why, ...diffLines(entry.diff, false)];
  }
  if (entry.action === "update") {
    return [`  ~ update ${inert(entry.domain)} (id ${entry.id})`, ...diffLines(entry.diff, true)];
  }
  if (entry.action === "delete") {
    return [`  - delete ${inert(entry.domain)} (id ${entry.id})`, `      # ${inert(entry.reason)}`];
  }
  return [];
}

function diffLines(diff: Diff, withFrom: boolean): string[] {
  const fields = Object.entries(diff);
  const width = Math.max(...fields.map(([field]) => field.length));
  return fields.map(([field, change]) => {
    const label = `${field}:`.padEnd(width + 1);
    const to = show(change!.to);
    return withFrom ? `      ${label} ${show(change!.from)} → ${to}` : `      ${label} ${to}`;
  });
}

function show(value: FieldValue): string {
  if (value === null) return "(none)";
  if (value === "(sensitive)") return value;
  return inert(JSON.stringify(value).replace(/","/g, '", "'));
}

function apart(plan: Plan, action: "unmanaged" | "conflict" | "withheld", title: string): string[] {
  const entries = plan.entries.filter((entry) => entry.action === action);
  if (entries.length === 0) return [];
  const lines = entries.map((entry) => {
    const id = "id" in entry ? ` (id ${entry.id})` : "";
    return `  ${inert(entry.domain)}${id}: ${"reason" in entry ? inert(entry.reason ?? "") : ""}`;
  });
  return [`${title}: ${entries.length}`, ...lines, ""];
}

/** The JSON plan: `{format_version, summary, changes: [{action, domain, id?, diff?, reason?}]}`; no-ops left out. */
export function planJson(plan: Plan, refusal?: DeleteRefusal) {
  const changes = plan.entries
    .filter((entry) => entry.action !== "noop")
    .map((entry) => {
      const change: Record<string, unknown> = { action: entry.action, domain: entry.domain };
      if ("id" in entry) change.id = entry.id;
      if ("ids" in entry) change.ids = entry.ids;
      if ("instead" in entry) change.instead = entry.instead;
      if ("declared_domain" in entry && entry.declared_domain) change.declared_domain = entry.declared_domain;
      if ("diff" in entry) change.diff = entry.diff;
      if ("reason" in entry && entry.reason) change.reason = entry.reason;
      return change;
    });
  return {
    format_version: PLAN_FORMAT_VERSION,
    complete: plan.remote.complete,
    ...(plan.remote.complete ? {} : { incomplete_reason: plan.remote.problem ?? "the pages disagreed" }),
    summary: plan.summary,
    changes,
    ...(refusal ? { deletes_refused: { code: refusal.code, message: refusal.message } } : {}),
  };
}

const DONE = { create: "created", update: "updated", delete: "deleted" } as const;

export function renderApplyText(result: ApplyResult): string {
  const out = result.applied.map(
    (a) => `  ${MARK[a.action]} ${DONE[a.action]} ${inert(a.domain)} (id ${a.id})`,
  );
  for (const conflict of result.conflicts)
    out.push(`  ! conflict ${inert(conflict.domain)}: ${inert(conflict.reason)}`);
  for (const error of result.errors) out.push(`  ! ${inert(error.message)}`);
  const errors = result.errors.length;
  const conflicts = result.conflicts.length;
  out.push(
    `Apply ${errors > 0 ? "finished with errors" : "complete"}: ${result.created} created, ${result.updated} updated, ${result.deleted} deleted${conflicts > 0 ? `, ${conflicts} ${conflicts === 1 ? "conflict" : "conflicts"}` : ""}${errors > 0 ? `, ${errors} ${errors === 1 ? "error" : "errors"}` : ""}.`,
  );
  return `${out.join("\n")}\n`;
}
