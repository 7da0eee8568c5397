// "Needs a person", the console's home: what only a person can settle, each with the one action that settles it
// and the money at risk — purchases in_doubt and unverified (verify mismatches among them) with their evidence,
// plans waiting for approval or about to expire, the website drift of the last pass, notifications given up on.
import { maskPhone } from "../log/mask.js";
import { parseMoney, sumMoney } from "../money.js";
import { formatAge, formatAmount } from "../report/format.js";
import { html, type Markup } from "./html.js";
import {
  attentionCounts,
  attentionPurchases,
  failedMessageCount,
  failedMessages,
  lastWebsitePass,
  notedCount,
  openPlans,
  pendingPlanCount,
} from "./reads.js";
import { amount, type ConsoleView, can, instant, render } from "./view.js";

/** Items of each kind listed on the home page; the rest are counted, and their own page lists them. */
const SHOWN = 25;
/** A plan this close to its expiry is called out. */
const EXPIRING_MS = 2 * 3_600_000;

export async function homePage(view: ConsoleView): Promise<string> {
  const db = view.database.db;
  // The cards count everything; the lists show the first SHOWN of it. The cards counted the lists before: at most 25
  // open plans, those expiring first (approved ones too, so pending plans past them counted 0), and 25 failures.
  const [counts, noted, purchases, plans, pending, pass, failed, failedCount] = await Promise.all([
    attentionCounts(db),
    notedCount(db),
    attentionPurchases(db, SHOWN),
    openPlans(db, SHOWN, EXPIRING_MS),
    pendingPlanCount(db),
    lastWebsitePass(db),
    failedMessages(db, view.now, SHOWN),
    failedMessageCount(db, view.now),
  ]);
  const atRisk = sumMoney(counts.map((c) => parseMoney(c.amount)));
  const count = (state: string) => counts.find((c) => c.state === state)?.n ?? 0;
  const expiring = plans.filter((p) => p.expires_at.getTime() - view.now.getTime() < EXPIRING_MS);
  const drift = driftOf(pass?.summary);
  const body = html`<h1>Needs a person</h1>
<div class="cards" id="counts">
<div class="card" id="count-in_doubt"><b>${count("in_doubt")}</b><span>in_doubt</span></div>
<div class="card" id="count-unverified"><b>${count("unverified")}</b><span>unverified</span></div>
<div class="card" id="at-risk"><b>${formatAmount(atRisk)}</b><span>money at risk</span></div>
<div class="card"><b>${pending}</b><span>plans awaiting approval</span></div>
<div class="card"><b>${drift.length}</b><span>website drift</span></div>
<div class="card"><b>${failedCount}</b><span>failed notifications (7 days)</span></div>
${noted > 0 ? html`<div class="card"><b>${noted}</b><span>settled with a note</span></div>` : ""}
</div>
<section id="purchases"><h2>Purchases to settle</h2>
${purchases.length === 0 ? html`<p class="muted">No purchase is in_doubt or unverified.</p>` : ""}
${purchases.map((p) => {
  const age = formatAge(view.now.getTime() - p.updated_at.getTime());
  return html`<article class="item ${p.state}" id="purchase-${p.id}">
<h3><a href="${view.base}/purchases/${p.id}">Purchase ${p.id}</a> &middot; ${p.state} &middot; ${amount(p.amount)}</h3>
<p>${maskPhone(p.phone)} &middot; ${p.network}${p.plan_id ? ` plan ${p.plan_id}` : ""}${p.plan_name ? ` ${p.plan_name}` : ""} &middot; ${p.job_name ? `job ${p.job_name}` : p.source} &middot; since ${age}</p>
${p.reference ? html`<p>reference ${p.reference}</p>` : ""}
${p.last_event ? html`<p class="muted">${p.last_event}</p>` : ""}
${p.note ? html`<p class="muted">note: ${p.note}</p>` : ""}
${p.candidates > 0 ? html`<p><b>${p.candidates}</b> unmatched provider notification${p.candidates === 1 ? "" : "s"} could be this purchase</p>` : ""}
<p>${
    can(view, "resolve")
      ? html`<a class="action" href="${view.base}/purchases/${p.id}#resolve">Settle: see the evidence, then resolve</a>`
      : html`<a href="${view.base}/purchases/${p.id}">See the evidence</a>`
  }</p>
</article>`;
})}
${sum(counts) > purchases.length ? html`<p><a href="${view.base}/purchases?state=in_doubt">All in_doubt purchases</a> &middot; <a href="${view.base}/purchases?state=unverified">all unverified</a></p>` : ""}
</section>
<section id="plans"><h2>Plans awaiting approval or about to expire</h2>
${plans.length === 0 ? html`<p class="muted">No plan is waiting.</p>` : ""}
${plans.map(
  (p) => html`<article class="item" id="plan-${p.id}">
<h3><a href="${view.base}/plans/${encodeURIComponent(p.id)}">Plan ${p.id}</a> &middot; ${p.status}${expiring.includes(p) ? " (expiring soon)" : ""}</h3>
<p>${p.kind} &middot; ${p.items} items &middot; ${amount(p.total)} &middot; by ${p.author} &middot; expires ${instant(view, p.expires_at)}</p>
<p>${
    p.status === "pending_approval" && can(view, "approve")
      ? html`<a class="action" href="${view.base}/plans/${encodeURIComponent(p.id)}#approve">Review and approve</a>`
      : html`<a href="${view.base}/plans/${encodeURIComponent(p.id)}">See the plan</a>`
  }</p>
</article>`,
)}
${pending > plans.filter((p) => p.status === "pending_approval").length ? html`<p><a href="${view.base}/plans?status=pending">All ${pending} plans awaiting approval</a></p>` : ""}
</section>
<section id="websites"><h2>Website drift</h2>
${websitesPart(view, pass, drift)}
</section>
<section id="notifications"><h2>Failed notifications</h2>
${failed.length === 0 ? html`<p class="muted">No notification was given up on in the last 7 days.</p>` : ""}
${failed.map(
  (m) => html`<article class="item" id="message-${m.id}">
<h3>${m.trigger} to ${m.channel}</h3>
<p>${m.attempts} attempts, last: ${m.last_error ?? "-"} &middot; ${instant(view, m.created_at)}</p>
<p class="muted">Check the channel's settings, then <code>topsync notify test ${m.channel}</code>.</p>
</article>`,
)}
${failedCount > failed.length ? html`<p>${failedCount - failed.length} more: <code>topsync notify list --status failed</code></p>` : ""}
</section>`;
  return render(view, "", "Needs a person", body);
}

function sum(counts: Array<{ n: number }>): number {
  return counts.reduce((total, c) => total + c.n, 0);
}

export interface DriftEntry {
  action: string;
  domain: string;
  fields?: string[];
}

/** The changes a pass found (creates, updates, deletes, conflicts; unmanaged websites are listed, not drift). */
export function driftOf(summary: unknown): DriftEntry[] {
  const changes = (summary as { changes?: unknown } | null)?.changes;
  if (!Array.isArray(changes)) return [];
  return changes
    .filter((c): c is DriftEntry => typeof c === "object" && c !== null && typeof c.domain === "string")
    .filter((c) => c.action !== "unmanaged" && c.action !== "noop");
}

function websitesPart(
  view: ConsoleView,
  pass: Awaited<ReturnType<typeof lastWebsitePass>>,
  drift: DriftEntry[],
): Markup {
  if (!pass) return html`<p class="muted">No website pass has run yet.</p>`;
  const errors = Array.isArray(pass.errors) ? pass.errors.length : 0;
  return html`<p>Last pass ${pass.id} (${pass.mode}, ${pass.status}) at ${instant(view, pass.started_at)}: ${drift.length} change${drift.length === 1 ? "" : "s"} pending${errors ? `, ${errors} errors` : ""}.</p>
${drift.slice(0, SHOWN).map((d) => html`<p>${d.action} ${d.domain}${d.fields?.length ? ` (${d.fields.join(", ")})` : ""}</p>`)}
${drift.length > 0 || errors > 0 ? html`<p><a class="action" href="${view.base}/websites">See the pass; settle it with <code>topsync websites apply</code></a></p>` : ""}`;
}
