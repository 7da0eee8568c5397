// The purchase parts of the plan document: the jobs with their resolved plans, the runs due with their
// counts and costs, and the totals by network.
import type { Money } from "../money.js";
import type { ProjectedRun } from "../purchases/projection.js";
import { type Block, left, right, table, text } from "./document.js";
import type { Forecast, JobLine, PurchaseForecast } from "./forecast-model.js";
import { formatAmount, type PhoneView } from "./format.js";

export function jobBlocks(jobs: JobLine[], at: (d: Date) => string): Block[] {
  if (jobs.length === 0) return [text("No purchase jobs are configured.")];
  return [
    table(
      "jobs",
      [
        left("Job"),
        left("When"),
        left("Plan"),
        right("Live price"),
        right("Max price"),
        right("Fires in window"),
        left("Next fire after"),
        left("Status"),
      ],
      jobs.map((job) => [
        job.job,
        when(job, at),
        job.planId ? `${job.network} ${job.planId} ${job.planName}` : job.requested,
        amount(job.price),
        amount(job.maxPrice),
        String(job.fires.length),
        job.nextFire ? at(job.nextFire) : "-",
        jobStatus(job),
      ]),
    ),
  ];
}

function jobStatus(job: JobLine): string {
  const status = job.status === "ok" ? "ok" : `${job.status}: ${job.reason ?? ""}`;
  if (job.state === "active") return status;
  return `${job.state}: its fires are not bought${job.stateNote ? ` (${job.stateNote})` : ""}; ${status}`;
}

function when(job: JobLine, at: (d: Date) => string): string {
  if (!job.enabled) return "disabled";
  if (job.schedule) return `${job.schedule} (${job.timezone})`;
  if (job.at) return `at ${at(job.at)}${job.willNotFire ? ` (will not fire: ${job.willNotFire})` : ""}`;
  return "on demand only";
}

export function runLabel(run: ProjectedRun, at: (d: Date) => string): string {
  if (run.kind === "fire") return `job ${run.job} fire ${at(run.fireTime!)}`;
  return run.kind === "queued" ? "queued in the ledger" : "intake requests";
}

export function runBlocks(report: Forecast, at: (d: Date) => string, view: PhoneView): Block[] {
  const runs = report.purchases.runs;
  if (runs.length === 0)
    return [text("Nothing is due in this window: no fire, no queued purchase, no intake request.")];
  return [
    table(
      "runs",
      [
        left("When"),
        left("Run"),
        right("Recipients"),
        right("Buy"),
        right("Reject"),
        right("In ledger"),
        right("Duplicate"),
        right("Cost"),
        left("Note"),
      ],
      runs.map((run) => [
        run.time.getTime() === report.from.getTime() ? `now (${at(run.time)})` : at(run.time),
        runLabel(run, at),
        String(run.candidates),
        String(run.toBuy),
        String(run.rejected),
        String(run.existing),
        String(run.duplicates),
        formatAmount(run.cost),
        view.text(runNote(run)),
      ]),
    ),
  ];
}

function runNote(run: ProjectedRun): string {
  const notes: string[] = [];
  if (run.error) notes.push(run.error);
  if (run.unknown > 0) notes.push(`${run.unknown} unknown (catalogue unavailable)`);
  if (run.refusedBy.length > 0) notes.push(`refused by ${run.refusedBy.join(", ")}`);
  return notes.join("; ");
}

export function networkBlocks(p: PurchaseForecast): Block[] {
  if (p.byNetwork.length === 0) return [text("Nothing would be bought.")];
  return [
    table(
      "networks",
      [left("Network"), right("Purchases"), right("Cost")],
      [
        ...p.byNetwork.map((n) => [n.network, String(n.count), formatAmount(n.cost)]),
        ["total", String(p.totals.toBuy), formatAmount(p.totals.cost)],
      ],
    ),
  ];
}

function amount(value: Money | null): string {
  return value ? formatAmount(value) : "-";
}
