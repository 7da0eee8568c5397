// Jobs (each schedule, its next and last fires, its state), websites (the last pass and the plan it found), and
// the report (the `report --format html` document).
import { parseDuration } from "../duration.js";
import { inertDocument } from "../report/inert-document.js";
import { makeLedgerReport } from "../report/ledger.js";
import { ledgerDocument } from "../report/ledger-document.js";
import { renderHtmlBody } from "../report/render-html.js";
import { cronFiresBetween } from "../time/cron.js";
import { html, type Markup, trustedMarkup } from "./html.js";
import { driftOf } from "./page-home.js";
import { lastFires, lastWebsitePass } from "./reads.js";
import { type ConsoleView, instant, notice, render } from "./view.js";

const NEXT_SHOWN = 3;
const LAST_SHOWN = 5;
/** Jobs listed on one page; a config rarely has more. */
const JOBS_SHOWN = 200;

export async function jobsPage(view: ConsoleView): Promise<string> {
  const jobs = view.config.purchases.slice(0, JOBS_SHOWN);
  const recorded = await lastFires(
    view.database.db,
    jobs.map((job) => job.name),
    LAST_SHOWN,
  );
  const fires = jobs.map((job) => recorded.get(job.name) ?? []);
  const body = html`<h1>Jobs</h1>
${jobs.length === 0 ? html`<p class="muted">No purchase job is configured.</p>` : ""}
${jobs.map((job, i) => {
  const next = nextFires(view, job);
  return html`<article class="item job" id="job-${job.name}">
<h3>${job.name} &middot; <span class="state">${job.enabled ? "active" : "disabled in config"}</span></h3>
<!-- JOB-STATE: the job's state (active, suspended, paused) and its note come from the ledger here once schedules can be suspended -->
<p>${job.schedule ? `schedule ${job.schedule} (${job.timezone ?? view.config.timezone})` : job.at ? `once at ${instant(view, job.at)}` : "on demand only"}</p>
<p>Next fires: ${next.length ? next.map((d) => instant(view, d)).join(", ") : "none"}</p>
<p>Last fires: ${fires[i]!.length ? "" : "none recorded"}</p>
${fires[i]!.length ? html`<ul>${fires[i]!.map((f) => html`<li>${instant(view, f.fire_time)} &middot; ${f.status}${f.reason ? `: ${f.reason}` : ""}</li>`)}</ul>` : ""}
<!-- SUSPEND-RESUME: the suspend and resume forms of this job go here (allowed(..., "suspend" | "resume")), with the state's note above -->
<div class="job-actions" data-job="${job.name}"></div>
</article>`;
})}`;
  return render(view, "/jobs", "Jobs", body);
}

function nextFires(view: ConsoleView, job: ConsoleView["config"]["purchases"][number]): Date[] {
  if (!job.enabled) return [];
  if (job.at) return job.at > view.now ? [job.at] : [];
  if (!job.schedule) return [];
  try {
    return cronFiresBetween(
      job.schedule,
      job.timezone ?? view.config.timezone,
      view.now,
      new Date(view.now.getTime() + 4 * 366 * 86_400_000),
      NEXT_SHOWN,
    );
  } catch {
    return [];
  }
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
${errors.slice(0, 100).map((e) => html`<p>${e.domain ?? "*"} &middot; ${e.action ?? "-"}: ${e.message ?? ""}</p>`)}`
    : html`<h1>Websites</h1><p class="muted">No website pass has run yet.</p>`;
  return render(view, "/websites", "Websites", body);
}

export async function reportPage(view: ConsoleView, params: URLSearchParams): Promise<string> {
  const asked = params.get("since") ?? "7d";
  let sinceMs: number;
  let problem: string | undefined;
  try {
    sinceMs = Math.min(parseDuration(asked), 366 * 86_400_000);
  } catch {
    sinceMs = 7 * 86_400_000;
    problem = `since must be a duration like 24h or 7d; showing 7d`;
  }
  const report = await makeLedgerReport(view.database.db, {
    now: view.now,
    since: new Date(view.now.getTime() - sinceMs),
    timeZone: view.config.timezone,
  });
  const doc = ledgerDocument(report, { showPhone: false });
  const body = html`<form method="get" action="${view.base}/report" class="search">
<div><label for="since">Since</label><select id="since" name="since">${[
    "24h",
    "7d",
    "30d",
    "90d",
    "365d",
  ].map(
    (s) => html`<option${s === asked ? html` selected` : ""}>${s}</option>`,
  )}</select></div><div><button type="submit">Show</button></div></form>
${problem ? notice("error", problem) : ""}
<div class="document">${trustedMarkup(renderHtmlBody(inertDocument(doc)))}</div>`;
  return render(view, "/report", "Report", body);
}
