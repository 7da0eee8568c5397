// Jobs (each schedule, its next and last fires, its state), websites (the last pass and the plan it found), and
// the report (the `report --format html` document).
import { parseDuration } from "../duration.js";
import { listJobs } from "../purchases/job-list.js";
import { inertDocument } from "../report/inert-document.js";
import { makeLedgerReport } from "../report/ledger.js";
import { ledgerDocument } from "../report/ledger-document.js";
import { renderHtmlBody } from "../report/render-html.js";
import { localTime, wallClockInstant } from "../time/cron.js";
import { html, type Markup, trustedMarkup } from "./html.js";
import { driftOf } from "./page-home.js";
import { lastFires, lastWebsitePass } from "./reads.js";
import { actionForm, type ConsoleView, can, instant, notice, render } from "./view.js";

const LAST_SHOWN = 5;
/** Jobs listed on one page; a config rarely has more. */
const JOBS_SHOWN = 200;
/** A website pass's errors listed; the rest are counted. */
const ERRORS_SHOWN = 100;

export async function jobsPage(view: ConsoleView, message?: Markup): Promise<string> {
  const jobs = view.config.purchases.slice(0, JOBS_SHOWN);
  const [listed, recorded] = await Promise.all([
    listJobs(view.database.db, view.config, view.now),
    lastFires(
      view.database.db,
      jobs.map((job) => job.name),
      LAST_SHOWN,
    ),
  ]);
  const states = new Map(listed.map((job) => [job.name, job]));
  const elsewhere = listed.filter((job) => !job.inConfig);
  const body = html`<h1>Jobs</h1>
${message ?? ""}
${jobs.length === 0 ? html`<p class="muted">No purchase job is configured.</p>` : ""}
${jobs.map((job) => {
  const listing = states.get(job.name);
  const state = listing?.state ?? "active";
  const next = listing?.nextFires ?? [];
  const fires = recorded.get(job.name) ?? [];
  return html`<article class="item job" id="job-${job.name}">
<h3>${job.name} &middot; <span class="state state-${state}">${job.enabled ? state : "disabled in config"}</span></h3>
${listing?.note ? html`<p class="note">${listing.note}${listing.changedBy ? ` (${listing.changedBy}, ${instant(view, listing.changedAt)})` : ""}</p>` : ""}
<p>${job.schedule ? `schedule ${job.schedule} (${job.timezone ?? view.config.timezone})` : job.at ? `once at ${instant(view, job.at)}` : "on demand only"}</p>
<p>Next fires${state === "active" ? "" : " (skipped while it is " + state + ")"}: ${next.length ? next.map((d) => instant(view, d)).join(", ") : "none"}</p>
<p>Missed fires: ${String(listing?.missedFires ?? 0)}</p>
<p>Last fires: ${fires.length ? "" : "none recorded"}</p>
${fires.length ? html`<ul>${fires.map((f) => html`<li>${instant(view, f.fire_time)} &middot; ${f.status}${f.reason ? `: ${f.reason}` : ""}</li>`)}</ul>` : ""}
${jobForms(view, job.name, state, job.suspended === true)}
</article>`;
})}
${view.config.purchases.length > jobs.length ? html`<p class="muted">${view.config.purchases.length - jobs.length} more jobs are not listed here: <code>topsync jobs list</code> shows them all.</p>` : ""}
${
  elsewhere.length > 0
    ? html`<h2>Stopped, and no longer in the config</h2>
<p class="muted">Renamed or taken out of the config while suspended or paused: their queued purchases wait until a person resumes them (or cancels the purchases).</p>`
    : ""
}
${elsewhere.map(
  (job) => html`<article class="item job" id="job-${job.name}">
<h3>${job.name} &middot; <span class="state state-${job.state}">${job.state}</span></h3>
${job.note ? html`<p class="note">${job.note}${job.changedBy ? ` (${job.changedBy}, ${instant(view, job.changedAt)})` : ""}</p>` : ""}
<p>Not in the config: it fires no more. Queued purchases: ${String(job.queued ?? 0)}</p>
${jobForms(view, job.name, job.state, false)}
</article>`,
)}`;
  return render(view, "/jobs", "Jobs", body);
}

/** Suspend for an active job, resume for a stopped one (unless config suspends it), for those allowed to. */
function jobForms(view: ConsoleView, name: string, state: string, byConfig: boolean): Markup | string {
  const url = (action: string) => `${view.base}/jobs/${encodeURIComponent(name)}/${action}`;
  const id = `job-${name.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  if (state === "active" && can(view, "suspend"))
    return actionForm(
      view,
      { url: url("suspend"), title: "Suspend", button: "Suspend the job", danger: true, id: `${id}-suspend` },
      html``,
    );
  if (state !== "active" && byConfig)
    return html`<p class="muted">Suspended by the config (suspended: true): take that out of the config to resume it.</p>`;
  if (state !== "active" && can(view, "resume"))
    return actionForm(
      view,
      { url: url("resume"), title: "Resume", button: "Resume the job", id: `${id}-resume` },
      html``,
    );
  return "";
}

export async function websitesPage(view: ConsoleView): Promise<string> {
  const pass = await lastWebsitePass(view.database.db);
  const summary = (pass?.summary ?? {}) as {
    planned?: Record<string, unknown>;
    declared?: number;
    remote?: number;
    deletes_refused?: string;
  };
  const drift = driftOf(pass?.summary);
  const errors = Array.isArray(pass?.errors)
    ? (pass.errors as Array<{ domain?: string; action?: string; message?: string }>)
    : [];
  const body: Markup = pass
    ? html`<h1>Websites</h1>
<dl class="facts" id="pass">
<dt>last pass</dt><dd>${pass.id} (${pass.mode})</dd>
<dt>status</dt><dd>${pass.status}</dd>
<dt>started</dt><dd>${instant(view, pass.started_at)}</dd>
<dt>finished</dt><dd>${instant(view, pass.finished_at)}</dd>
<dt>declared / remote</dt><dd>${String(summary.declared ?? "-")} / ${String(summary.remote ?? "-")}</dd>
<dt>done</dt><dd>${pass.created} created, ${pass.updated} updated, ${pass.deleted} deleted, ${pass.unchanged} unchanged, ${pass.unmanaged} unmanaged, ${pass.conflicts} conflicts</dd>
</dl>
${summary.deletes_refused ? notice("error", summary.deletes_refused) : ""}
<h2>The plan the pass found</h2>
<p class="muted">What differed between the declared websites and the remote ones when the pass read them${pass.mode === "observe" ? " (observe mode: planned, not applied)" : ""}. <code>topsync websites plan</code> reads the remote side again now.</p>
${drift.length === 0 ? html`<p>No change: the remote websites matched the declared ones.</p>` : ""}
<div class="scroll"><table id="table-drift"><thead><tr><th>Action</th><th>Domain</th><th>Fields</th></tr></thead>
<tbody>${drift.map((d) => html`<tr><td>${d.action}</td><td>${d.domain}</td><td>${d.fields?.join(", ") ?? ""}</td></tr>`)}</tbody></table></div>
<h2>Errors</h2>
${errors.length === 0 ? html`<p class="muted">None.</p>` : ""}
${errors.slice(0, ERRORS_SHOWN).map((e) => html`<p>${e.domain ?? "*"} &middot; ${e.action ?? "-"}: ${e.message ?? ""}</p>`)}
${errors.length > ERRORS_SHOWN ? html`<p class="muted">${errors.length - ERRORS_SHOWN} more errors are not listed here: <code>topsync report</code> shows the pass.</p>` : ""}`
    : html`<h1>Websites</h1><p class="muted">No website pass has run yet.</p>`;
  return render(view, "/websites", "Websites", body);
}

/**
 * Where the Report page's period starts. A period of days (`7d`) is that many calendar days in the configured time
 * zone, today's included, from midnight: every bar of its daily chart is a whole day, as a dashboard's "last 7 days"
 * reads (a period starting at this hour of a week ago drew a first day of a few hours). Any other duration (`24h`)
 * reaches back from now. At most 366 days; a period of no time (`0d`) throws.
 */
export function reportStart(asked: string, now: Date, timeZone: string): Date {
  const back = Math.min(parseDuration(asked), 366 * DAY_MS);
  // A period of no time is none: "0d" started tomorrow at midnight, after its own end (the page is told why).
  if (!(back > 0)) throw new Error("a report's period is longer than no time");
  if (!/^\s*\d+\s*d\s*$/.test(asked)) return new Date(now.getTime() - back);
  const day = localTime(now.getTime() - back + DAY_MS, timeZone);
  return new Date(wallClockInstant({ ...day, hour: 0, minute: 0, second: 0 }, timeZone).ms);
}

const DAY_MS = 86_400_000;

export async function reportPage(view: ConsoleView, params: URLSearchParams): Promise<string> {
  const asked = params.get("since") ?? "7d";
  let since: Date;
  let problem: string | undefined;
  try {
    since = reportStart(asked, view.now, view.config.timezone);
  } catch {
    since = reportStart("7d", view.now, view.config.timezone);
    problem = `since must be a duration like 24h or 7d; showing 7d`;
  }
  const report = await makeLedgerReport(view.database.db, {
    now: view.now,
    since,
    timeZone: view.config.timezone,
  });
  const doc = ledgerDocument(report, { showPhone: false });
  // The period shown is the one chosen in the form, also when it is not one of the list (48h): the browser chose the
  // list's first, and Show changed the period to one the page had not said.
  const shown = problem ? "7d" : asked;
  const periods = ["24h", "7d", "30d", "90d", "365d"];
  const body = html`<form method="get" action="${view.base}/report" class="search">
<div><label for="since">Since</label><select id="since" name="since">${(
    periods.includes(shown) ? periods : [...periods, shown]
  ).map(
    (s) => html`<option${s === shown ? html` selected` : ""}>${s}</option>`,
  )}</select></div><div><button type="submit">Show</button></div></form>
${problem ? notice("error", problem) : ""}
<div class="document">${trustedMarkup(renderHtmlBody(inertDocument(doc)))}</div>`;
  return render(view, "/report", "Report", body);
}
