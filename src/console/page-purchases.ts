// Purchases: a bounded, paged search (an id, reference or request key exactly; or job, state, day range and the
// last digits of a phone), and one purchase with its events, the provider's answers, the notifications tied to it
// or that could be it — and the forms that settle it (resolve, requeue, cancel) when its state allows.

import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { PURCHASE_STATES, type PurchaseState } from "../db/schema.js";
import { maskPhone, maskPhonesDeep, maskPhonesIn } from "../log/mask.js";
import { budgetDay } from "../purchases/guards.js";
import { type PurchaseRow, RESOLVABLE_STATES } from "../purchases/ledger.js";
import { readPurchaseNotifications } from "../purchases/ledger-read.js";
import { inertLines } from "../text/inert.js";
import { wallClockInstant } from "../time/cron.js";
import { html, type Markup } from "./html.js";
import {
  candidateNotifications,
  PAGE_SIZE,
  type PurchaseSearch,
  purchaseEvents,
  searchPurchases,
} from "./reads.js";
import { actionForm, amount, type ConsoleView, can, instant, notice, render } from "./view.js";

const DAY_MS = 86_400_000;
/** A search without a key covers at most this many days. */
const MAX_DAYS = 31;
const EVENTS_SHOWN = 200;

/** What a form carries so an action can tell whether the purchase changed since the page was drawn. */
export function purchaseVersion(row: Pick<PurchaseRow, "state" | "updated_at">): string {
  return `${row.state}@${row.updated_at.toISOString()}`;
}

export class SearchProblem extends Error {}

/** Midnight starting a calendar day (YYYY-MM-DD) in `timeZone`. */
function dayStart(day: string, timeZone: string): Date {
  const [year, month, date] = day.split("-").map(Number) as [number, number, number];
  return new Date(wallClockInstant({ year, month, day: date, hour: 0, minute: 0, second: 0 }, timeZone).ms);
}

export function parseSearch(params: URLSearchParams, now: Date, timeZone: string): PurchaseSearch {
  const get = (name: string) => params.get(name)?.trim() || undefined;
  const key = get("q");
  const state = get("state");
  if (state && !(PURCHASE_STATES as readonly string[]).includes(state))
    throw new SearchProblem(`state must be one of ${PURCHASE_STATES.join(", ")}`);
  const phoneEnd = get("phone");
  if (phoneEnd && !/^\d{3,11}$/.test(phoneEnd))
    throw new SearchProblem("phone: give the last 3 to 11 digits of the number");
  const day = (name: string) => {
    const text = get(name);
    if (!text) return undefined;
    // Before the last day of year 9999: the day after it has no four-digit year, and the search failed.
    if (
      !/^\d{4}-\d{2}-\d{2}$/.test(text) ||
      Number.isNaN(Date.parse(`${text}T00:00:00Z`)) ||
      text >= "9999-12-31"
    )
      throw new SearchProblem(`${name} must be a day like 2026-11-26`);
    return text;
  };
  const next = (text: string) =>
    new Date(Date.parse(`${text}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
  const toDay = day("to") ?? budgetDay(now, timeZone);
  const to = dayStart(next(toDay), timeZone);
  const fromDay = day("from");
  const from = fromDay ? dayStart(fromDay, timeZone) : new Date(to.getTime() - 7 * DAY_MS);
  if (from >= to) throw new SearchProblem("from must be a day before to");
  if (to.getTime() - from.getTime() > MAX_DAYS * DAY_MS)
    throw new SearchProblem(
      `a search covers at most ${MAX_DAYS} days; search by reference or request key for older ones`,
    );
  const before = get("before");
  return {
    key: key && key.length <= 500 ? key : undefined,
    job: get("job")?.slice(0, 200),
    state: state as PurchaseState | undefined,
    phoneEnd,
    from,
    to,
    before: before && /^\d{1,15}$/.test(before) ? Number(before) : undefined,
  };
}

/**
 * The search terms a page carries forward (the pager's link, the form) that its masking would change — a whole
 * phone number, a reference holding one. Drawn as they are they would show the number in full; drawn masked they
 * are another search (0803****777 is no last digits at all). So they travel sealed as `<name>_kept`, readable by
 * this session only (its key is derived from the session's CSRF secret), and the field shows them masked.
 */
const KEPT_TERMS = ["q", "phone"] as const;

function sealKey(view: ConsoleView): Buffer {
  return createHash("sha256").update(`topsync console kept search term\u0000${view.csrf}`).digest();
}

function seal(view: ConsoleView, text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealKey(view), iv);
  const sealed = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64url");
}

function unseal(view: ConsoleView, token: string): string | undefined {
  const bytes = Buffer.from(token, "base64url");
  if (bytes.length < 28 || bytes.length > 2048) return undefined;
  try {
    const decipher = createDecipheriv("aes-256-gcm", sealKey(view), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString("utf8");
  } catch {
    return undefined;
  }
}

/** Whether a page would draw this text otherwise than it is (a phone number masked, a control character escaped). */
function drawnChanged(text: string): boolean {
  return maskPhonesIn(inertLines(text)) !== text;
}

/** The search asked for: a term typed in its field, or else the one the page before kept sealed. */
function openKeptTerms(view: ConsoleView, params: URLSearchParams): URLSearchParams {
  const open = new URLSearchParams(params);
  for (const name of KEPT_TERMS) {
    const kept = open.get(`${name}_kept`);
    open.delete(`${name}_kept`);
    if (!kept || open.get(name)?.trim()) continue;
    const text = unseal(view, kept);
    if (text === undefined)
      throw new SearchProblem(
        `${name === "q" ? "the reference or key" : "the phone"} this link kept is from another session: search again`,
      );
    open.set(name, text);
  }
  return open;
}

/** The search as the next page's link carries it: the terms a page would draw changed, sealed. */
function keptTerms(view: ConsoleView, params: URLSearchParams): URLSearchParams {
  const kept = new URLSearchParams(params);
  for (const name of KEPT_TERMS) {
    const text = kept.get(name);
    if (!text || !drawnChanged(text)) continue;
    kept.delete(name);
    kept.set(`${name}_kept`, seal(view, text));
  }
  return kept;
}

/** A search field: its term as typed, or, when the page would draw it changed, empty with the term kept sealed. */
function termField(
  view: ConsoleView,
  name: (typeof KEPT_TERMS)[number],
  value: string,
  extra: Markup,
): Markup {
  if (!value || !drawnChanged(value))
    return html`<input type="${name === "q" ? "search" : "text"}" id="${name}" name="${name}"${extra} value="${value}">`;
  return html`<input type="${name === "q" ? "search" : "text"}" id="${name}" name="${name}"${extra} value="" placeholder="${value}"><input type="hidden" name="${name}_kept" value="${seal(view, value)}">`;
}

export async function purchasesPage(view: ConsoleView, asked: URLSearchParams): Promise<string> {
  let search: PurchaseSearch | undefined;
  let problem: string | undefined;
  let params = asked;
  try {
    params = openKeptTerms(view, asked);
    search = parseSearch(params, view.now, view.config.timezone);
  } catch (error) {
    if (!(error instanceof SearchProblem)) throw error;
    problem = error.message;
  }
  const found = search ? await searchPurchases(view.database.db, search) : [];
  const value = (name: string) => params.get(name) ?? "";
  const next = keptTerms(view, params);
  if (found.length === PAGE_SIZE) next.set("before", String(found[found.length - 1]!.id));
  const body = html`<h1>Purchases</h1>
<form method="get" action="${view.base}/purchases" class="search" role="search">
<div><label for="q">Reference, request key or id</label>${termField(view, "q", value("q"), html``)}</div>
<div><label for="job">Job</label><input type="text" id="job" name="job" value="${value("job")}"></div>
<div><label for="state">State</label><select id="state" name="state"><option value="">any</option>${PURCHASE_STATES.map(
    (s) => html`<option${value("state") === s ? html` selected` : ""}>${s}</option>`,
  )}</select></div>
<div><label for="phone">Phone ends with</label>${termField(view, "phone", value("phone"), html` inputmode="numeric"`)}</div>
<div><label for="from">From day</label><input type="date" id="from" name="from" value="${value("from")}"></div>
<div><label for="to">To day</label><input type="date" id="to" name="to" value="${value("to")}"></div>
<div><button type="submit">Search</button></div>
</form>
${problem ? notice("error", problem) : ""}
${search && !search.key ? html`<p class="muted">Created ${instant(view, search.from)} to ${instant(view, search.to)} (${view.config.timezone})${search.state && ["submitting", "in_doubt", "unverified"].includes(search.state) ? ", or any day for an unsettled state" : ""}; newest first, ${PAGE_SIZE} a page.</p>` : ""}
<div class="scroll"><table id="table-purchases">
<thead><tr><th>ID</th><th>State</th><th>Job or source</th><th>Phone</th><th class="num">Amount</th><th>Reference</th><th>Updated</th></tr></thead>
<tbody>
${found.map(
  (p) =>
    html`<tr><td><a href="${view.base}/purchases/${p.id}">${p.id}</a></td><td>${p.state}</td><td>${p.job_name ?? p.source}</td><td>${maskPhone(p.phone)}</td><td class="num">${amount(p.amount)}</td><td>${p.reference ?? "-"}</td><td>${instant(view, p.updated_at)}</td></tr>`,
)}
</tbody></table></div>
${found.length === 0 && !problem ? html`<p class="muted">No purchase matches.</p>` : ""}
${found.length === PAGE_SIZE ? html`<p class="pager"><a href="${view.base}/purchases?${next.toString()}">Older &rarr;</a></p>` : ""}`;
  return render(view, "/purchases", "Purchases", body);
}

export async function purchasePage(view: ConsoleView, row: PurchaseRow, message?: Markup): Promise<string> {
  const db = view.database.db;
  const [events, notifications, candidates] = await Promise.all([
    purchaseEvents(db, row.id, EVENTS_SHOWN),
    readPurchaseNotifications(db, row),
    row.state === "in_doubt"
      ? candidateNotifications(db, { amount: row.charged_amount ?? row.amount, phone: row.phone }, 20)
      : Promise.resolve([]),
  ]);
  const facts: Array<[string, string | null]> = [
    ["state", row.state],
    ["request key", row.request_key],
    [
      "source",
      row.job_name ? `job ${row.job_name} (fire ${row.fire_time?.toISOString() ?? "-"})` : row.source,
    ],
    ["phone", `${maskPhone(row.phone)}${row.ported ? " (ported)" : ""}`],
    ["network", row.network_id ? `${row.network} (${row.network_id})` : row.network],
    ["plan", row.plan_id ? `${row.plan_id}${row.plan_name ? ` ${row.plan_name}` : ""}` : null],
    [
      "amount",
      row.charged_amount && row.charged_amount !== row.amount
        ? `${amount(row.amount)} listed, ${amount(row.charged_amount)} charged`
        : amount(row.amount),
    ],
    ["reference", row.reference],
    ["provider", [row.provider_status, row.provider_message].filter(Boolean).join(": ") || null],
    ["reason", row.reason],
    ["note", row.note],
    ["refund", row.refund_amount],
    ["attempts", `${row.attempts} of ${row.max_attempts}`],
    ["created", instant(view, row.created_at)],
    ["updated", instant(view, row.updated_at)],
  ];
  const body = html`<h1>Purchase ${row.id}</h1>
${message ?? ""}
<dl class="facts" id="facts">${facts
    .filter(([, v]) => v)
    .map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>
${actions(view, row)}
<section id="events"><h2>Events</h2>
<div class="scroll"><table id="table-events">
<thead><tr><th>At</th><th>Actor</th><th>From</th><th>To</th><th>Why</th></tr></thead>
<tbody>
${events.map(
  (e) =>
    html`<tr><td>${instant(view, e.at)}</td><td>${e.actor}</td><td>${e.from_state ?? "-"}</td><td>${e.to_state}</td><td class="wrap">${e.reason ?? ""}</td></tr>`,
)}
</tbody></table></div>
${events.length === EVENTS_SHOWN ? html`<p class="muted">The first ${EVENTS_SHOWN} events; <code>topsync purchases show ${row.id}</code> lists them all.</p>` : ""}
</section>
<section id="answers"><h2>The provider's answers</h2>
${events.filter((e) => e.response !== null && e.response !== undefined).length === 0 ? html`<p class="muted">No answer was recorded.</p>` : ""}
${events
  .filter((e) => e.response !== null && e.response !== undefined)
  .map(
    (e) =>
      html`<details><summary>${instant(view, e.at)} &middot; ${e.from_state ?? "-"} &rarr; ${e.to_state} (${e.actor})</summary><pre>${JSON.stringify(maskPhonesDeep(e.response), null, 2)}</pre></details>`,
  )}
</section>
<section id="notifications"><h2>Provider notifications</h2>
${notifications.length === 0 ? html`<p class="muted">None tied to this purchase or naming its reference.</p>` : ""}
${notifications.map(
  (n) =>
    html`<p>Notification ${n.id} &middot; ${instant(view, n.received_at)} &middot; ${n.status ?? "-"} &middot; reference ${n.reference ?? "-"} &middot; ${n.outcome}${n.reason ? html` &middot; <span class="muted">${n.reason}</span>` : ""}</p>`,
)}
${
  candidates.length > 0
    ? html`<h3>Unmatched notifications that could be this purchase</h3>
<p class="muted">Same amount and the same last three digits of the phone: a hint, not proof. A verify read of the reference is the proof (<code>topsync verify REFERENCE</code>).</p>
${candidates.map(
  (n) =>
    html`<p>Notification ${n.id} &middot; ${instant(view, n.received_at)} &middot; ${n.status ?? "-"} &middot; reference ${n.reference ?? "-"} &middot; ${amount(n.amount)} &middot; ${n.phone ?? "-"}</p>`,
)}`
    : ""
}
</section>`;
  return render(view, "/purchases", `Purchase ${row.id}`, body);
}

function actions(view: ConsoleView, row: PurchaseRow): Markup {
  const version = purchaseVersion(row);
  const url = (what: string) => `${view.base}/purchases/${row.id}/${what}`;
  const forms: Markup[] = [];
  // Not a reference the page shows changed (a phone number in it masked, a bidi mark made visible): the form sent
  // back the changed text, which the resolve wrote over the provider's reference.
  const shownReference =
    row.reference && maskPhonesIn(inertLines(row.reference)) === row.reference ? row.reference : "";
  if (RESOLVABLE_STATES.includes(row.state) || row.note?.startsWith("reference_clash")) {
    if (can(view, "resolve"))
      forms.push(
        actionForm(
          view,
          { url: url("resolve"), title: "Resolve", version, button: "Resolve", id: "resolve" },
          html`<fieldset><legend>The provider's outcome</legend>
<label><input type="radio" name="as" value="succeeded" required> succeeded</label>
<label><input type="radio" name="as" value="failed"> failed</label></fieldset>
<label for="resolve-reference">Provider reference (for succeeded, when known)</label>
<input type="text" id="resolve-reference" name="reference" maxlength="200" value="${shownReference}">${shownReference !== (row.reference ?? "") ? html`<p class="muted">Left empty, the purchase keeps the reference it has (shown above with its phone number masked).</p>` : ""}`,
        ),
      );
  }
  if ((row.state === "failed" || row.state === "rejected") && can(view, "requeue"))
    forms.push(
      actionForm(
        view,
        { url: url("requeue"), title: "Requeue", version, button: "Requeue", id: "requeue" },
        html``,
      ),
    );
  if ((row.state === "queued" || row.state === "held") && can(view, "cancel"))
    forms.push(
      actionForm(
        view,
        {
          url: url("cancel"),
          title: "Cancel",
          version,
          button: "Cancel the purchase",
          danger: true,
          id: "cancel",
        },
        html``,
      ),
    );
  if (forms.length === 0) return html``;
  return html`<section id="actions"><h2>Settle it</h2>${forms}</section>`;
}
