// Plans: pending, approved, applied and ended, a page at a time; one plan exactly as `topsync show` renders it
// (the same inspection: where it stands, its approvals, which items are stale now), and the approve and reject
// forms for an approver who may sign here.

import { createPublicKey } from "node:crypto";
import { ownEntry } from "../own-entry.js";
import { isAuthor, publicKeyText } from "../plans/approvals.js";
import { type InspectDeps, inspectPlan, PlanNotRecorded } from "../plans/inspect.js";
import type { SavedPlanRow } from "../plans/registry.js";
import { phoneView } from "../report/format.js";
import { inertDocument } from "../report/inert-document.js";
import { planDocument } from "../report/plan-document.js";
import { renderHtmlBody } from "../report/render-html.js";
import type { ResellerClient } from "../reseller/client.js";
import type { WebsiteApi } from "../websites/reconcile.js";
import { html, type Markup, trustedMarkup } from "./html.js";
import { PAGE_SIZE, PLAN_STATUS_GROUPS, type PlanGroup, plansByStatus } from "./reads.js";
import { actionForm, amount, type ConsoleView, can, instant, notice, render } from "./view.js";

const GROUP_TITLES: Record<PlanGroup, string> = {
  pending: "Pending approval",
  approved: "Approved, not yet applied",
  applied: "Applied",
  ended: "Rejected, expired or cancelled",
};

export async function plansPage(view: ConsoleView, params: URLSearchParams): Promise<string> {
  const asked = params.get("status") ?? "pending";
  // Its own groups only: `in` found what every object inherits too ("constructor", "toString"), and the page failed.
  const group: PlanGroup = Object.hasOwn(PLAN_STATUS_GROUPS, asked) ? (asked as PlanGroup) : "pending";
  const beforeAt = params.get("before_at");
  const beforeId = params.get("before_id");
  const before =
    // What the pager writes, to the microsecond, with a year the ledger can take ("-000001-01-01T00:00:00Z" parses,
    // and the query failed).
    beforeAt &&
    beforeId &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/.test(beforeAt) &&
    !Number.isNaN(Date.parse(beforeAt))
      ? { at: beforeAt, id: beforeId }
      : undefined;
  const plans = await plansByStatus(view.database.db, group, before);
  const last = plans[plans.length - 1];
  const next = last
    ? new URLSearchParams({ status: group, before_at: last.created_key, before_id: last.id })
    : undefined;
  const body = html`<h1>Plans</h1>
<nav aria-label="plan status"><ul>${(Object.keys(GROUP_TITLES) as PlanGroup[]).map(
    (g) =>
      html`<li><a href="${view.base}/plans?status=${g}"${g === group ? html` aria-current="page"` : ""}>${GROUP_TITLES[g]}</a></li>`,
  )}</ul></nav>
<h2>${GROUP_TITLES[group]}</h2>
${plans.length === 0 ? html`<p class="muted">None.</p>` : ""}
<div class="scroll"><table id="table-plans">
<thead><tr><th>Plan</th><th>Kind</th><th>Status</th><th>Author</th><th class="num">Items</th><th class="num">Total</th><th>Expires</th></tr></thead>
<tbody>${plans.map(
    (p) =>
      html`<tr><td><a href="${view.base}/plans/${encodeURIComponent(p.id)}">${p.id}</a></td><td>${p.kind}</td><td>${p.status}</td><td>${p.author}</td><td class="num">${p.items}</td><td class="num">${amount(p.total)}</td><td>${instant(view, p.expires_at)}</td></tr>`,
  )}</tbody></table></div>
${plans.length === PAGE_SIZE && next ? html`<p class="pager"><a href="${view.base}/plans?${next.toString()}">Older &rarr;</a></p>` : ""}`;
  return render(view, "/plans", "Plans", body);
}

export interface PlanClients {
  reseller: () => Promise<ResellerClient>;
  analytics: () => Promise<WebsiteApi>;
}

export async function planPage(
  view: ConsoleView,
  id: string,
  clients: PlanClients,
  message?: Markup,
): Promise<string | undefined> {
  const deps: InspectDeps = {
    database: view.database,
    config: view.config,
    logger: view.logger,
    reseller: clients.reseller,
    analytics: clients.analytics,
  };
  // Only a plan the ledger never recorded is no page (404). The live checks (the reseller's prices, the analytics
  // listing) cannot fail the page: inspectPlan shows the plan from the ledger with why they could not be made. Any
  // other failure is the console's error page and a log line, not a "not found" that hides it.
  let inspected: Awaited<ReturnType<typeof inspectPlan>>;
  try {
    inspected = await inspectPlan(deps, { id }, view.now);
  } catch (error) {
    if (error instanceof PlanNotRecorded) return undefined;
    throw error;
  }
  const doc = planDocument(inspected, view.config.timezone, phoneView(false));
  const body = html`${message ?? ""}
<div class="document">${trustedMarkup(renderHtmlBody(inertDocument(doc)))}</div>
${inspected.row ? decisionForms(view, inspected.row, inspected.status) : ""}`;
  return render(view, "/plans", `Plan ${id}`, body);
}

/** Why this user cannot sign a decision here, or undefined when they can. */
export function signingProblem(view: ConsoleView): string | undefined {
  const configured = ownEntry(view.config.approvals.approvers, view.user.name);
  if (!configured) return `${view.user.name} is not among approvals.approvers, so cannot approve here`;
  if (!view.signingKey)
    return `the console has no signing key for ${view.user.name} (console.users.${view.user.name}.signing_key or console.signing_key), so cannot sign approvals`;
  if (publicKeyText(createPublicKey(view.signingKey)) !== configured)
    return `approvals.approvers.${view.user.name} is not the public key of ${view.signingKeyField ?? "console.signing_key"}, so approvals signed here would not count`;
  return undefined;
}

function decisionForms(view: ConsoleView, row: SavedPlanRow, status: string): Markup {
  if (!["pending_approval", "approved"].includes(status)) return html``;
  if (!can(view, "approve")) return html``;
  const problem = signingProblem(view);
  if (problem) return notice("info", problem);
  if (isAuthor(view.user.name, row.author))
    return notice("info", `${view.user.name} wrote this plan; an author cannot approve their own plan`);
  const url = (what: string) => `${view.base}/plans/${encodeURIComponent(row.id)}/${what}`;
  const version = `${row.status}@${row.digest}`;
  return html`<section id="decide"><h2>Decide</h2>
${status === "pending_approval" ? actionForm(view, { url: url("approve"), title: `Approve plan ${row.id}`, version, button: "Approve", id: "approve" }, html`<p>Signs the plan's digest ${row.digest} as ${view.user.name}: the same approval as <code>topsync approve</code>.</p>`) : ""}
${actionForm(view, { url: url("reject"), title: `Reject plan ${row.id}`, version, button: "Reject", danger: true, id: "reject" }, html`<p>A rejection ends the plan.</p>`)}
</section>`;
}
