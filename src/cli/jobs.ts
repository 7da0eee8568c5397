// `topsync jobs list|suspend|resume|backfill`: schedules under the operator's hand. Each command calls one core
// function (src/purchases/job-states.ts, job-list.ts, src/plans/backfill.ts) and renders what it returns.

import { DataError, ExitCode, TopsyncError, UsageError } from "../errors.js";
import { formatMoney } from "../money.js";
import type { Backfill } from "../plans/backfill.js";
import type { RunProgress } from "../purchases/executor.js";
import { listJobs } from "../purchases/job-list.js";
import { type ChangeResult, readJobState, resumeJob, suspendJob } from "../purchases/job-states.js";
import type { ProjectionProgress } from "../purchases/projection-read.js";
import { findJob } from "../purchases/run-once.js";
import { formatInstant } from "../report/format.js";
import { zonedInstant } from "../time/zoned.js";
import { cliActor, planAuthor } from "./approval-gate.js";
import type { CommandContext } from "./context.js";
import { openLedger } from "./database.js";
import { renderJson, renderTable, write } from "./output.js";
import { personText } from "./person-text.js";
import { countLine, number, progressReporter } from "./progress.js";
import { stoppable, throwIfStopped } from "./signals.js";

/** "3/744 fires decided (60,000 rows)": the backfill's projection so far. */
function firesDecided(p: ProjectionProgress) {
  return { done: p.runs, total: p.total, unit: "fires decided", note: `${number(p.rows)} rows` };
}

import { configDigest } from "./saved-plans.js";

export async function jobsListCommand(ctx: CommandContext): Promise<void> {
  const database = await openLedger(ctx);
  const jobs = await listJobs(database.db, ctx.config, new Date());
  if (ctx.globals.json) {
    write(
      renderJson(
        jobs.map((j) => ({
          job: j.name,
          enabled: j.enabled,
          schedule: j.schedule,
          at: j.at?.toISOString() ?? null,
          timezone: j.timezone,
          state: j.state,
          note: j.note,
          state_changed_at: j.changedAt?.toISOString() ?? null,
          state_changed_by: j.changedBy,
          next_fires: j.nextFires.map((f) => f.toISOString()),
          last_fire: j.lastFire
            ? {
                fire_time: j.lastFire.fireTime.toISOString(),
                outcome: j.lastFire.outcome,
                reason: j.lastFire.reason,
              }
            : null,
          missed_fires: j.missedFires,
          in_config: j.inConfig,
          ...(j.queued === undefined ? {} : { queued: j.queued }),
        })),
      ),
    );
    return;
  }
  if (jobs.length === 0) {
    write("no purchase jobs are configured\n");
    return;
  }
  write(
    renderTable(jobs, [
      { header: "JOB", value: (j) => j.name },
      {
        header: "SCHEDULE",
        value: (j) =>
          !j.inConfig
            ? `not in the config (${j.queued ?? 0} queued)`
            : !j.enabled
              ? "disabled"
              : j.schedule
                ? `${j.schedule} (${j.timezone})`
                : j.at
                  ? `at ${formatInstant(j.at, j.timezone)} (${j.timezone})`
                  : "on demand",
      },
      // On the job's clock, as its schedule is written (--json gives ISO instants).
      {
        header: "NEXT FIRES",
        value: (j) => j.nextFires.map((f) => formatInstant(f, j.timezone)).join(", ") || "-",
      },
      {
        header: "LAST FIRE",
        value: (j) =>
          j.lastFire ? `${formatInstant(j.lastFire.fireTime, j.timezone)} ${j.lastFire.outcome}` : "-",
      },
      { header: "STATE", value: (j) => j.state },
      { header: "MISSED", value: (j) => String(j.missedFires), align: "right" },
      { header: "NOTE", value: (j) => j.note ?? "" },
    ]),
  );
}

export interface SuspendFlags {
  reason?: string;
}

export async function jobsSuspendCommand(
  ctx: CommandContext,
  name: string,
  flags: SuspendFlags,
): Promise<void> {
  findJob(ctx.config, name);
  const reason = personText(flags.reason, "--reason");
  if (!reason)
    throw new UsageError("jobs suspend needs --reason TEXT: why the job stops (shown in jobs list)");
  const database = await openLedger(ctx);
  const result = await suspendJob(database.db, name, { actor: cliActor(), reason });
  printChange(ctx, name, result, "suspended");
}

export async function jobsResumeCommand(
  ctx: CommandContext,
  name: string,
  flags: SuspendFlags,
): Promise<void> {
  const job = ctx.config.purchases.find((j) => j.name === name);
  const reason = personText(flags.reason, "--reason");
  const database = await openLedger(ctx);
  // A job renamed or removed from the config while stopped: the ledger still holds it, and its queued purchases
  // wait for a person; resuming it lets the next run buy them (`purchases cancel` withdraws them instead).
  const stopped = job ? undefined : await readJobState(database.db, name);
  if (!job && (!stopped || stopped.state === "active")) findJob(ctx.config, name);
  if (job?.suspended) {
    const state = await readJobState(database.db, name);
    throw new UsageError(
      `job "${name}" has suspended: true in ${ctx.configFile}${state ? ` (it is ${state.state})` : ""}; ` +
        "take it out of the config: the next start resumes the job",
      "JOB_SUSPENDED_BY_CONFIG",
    );
  }
  const result = await resumeJob(database.db, name, {
    actor: cliActor(),
    reason,
  });
  printChange(ctx, name, result, "active");
  if (!job && result.changed && !ctx.globals.json)
    write(
      `job ${name} is not in ${ctx.configFile}: it fires no more, but its queued purchases are bought by the next purchases run\n`,
    );
}

function printChange(ctx: CommandContext, name: string, result: ChangeResult, wanted: string): void {
  const { status } = result;
  if (ctx.globals.json) {
    write(
      renderJson({
        job: name,
        changed: result.changed,
        from: result.from,
        state: status.state,
        note: status.note,
        changed_at: status.changedAt?.toISOString() ?? null,
        changed_by: status.changedBy,
      }),
    );
    return;
  }
  if (result.changed)
    write(
      wanted === "active"
        ? `job ${name} resumed (was ${result.from}): it fires again on every replica, and its queued purchases are bought\n`
        : `job ${name} suspended on every replica: its fires are skipped and counted as missed, its queued purchases stay queued\n`,
    );
  else write(`job ${name} is ${status.state}${status.note ? ` (${status.note})` : ""}; nothing changed\n`);
}

export interface BackfillFlags {
  from: string;
  to: string;
  dryRun?: boolean;
  save?: string;
  allowWide?: boolean;
  as?: string;
  key?: string;
  showPhone?: boolean;
}

export async function jobsBackfillCommand(
  ctx: CommandContext,
  name: string,
  flags: BackfillFlags,
): Promise<void> {
  if (flags.dryRun && flags.save) throw new UsageError("give --dry-run or --save FILE, not both");
  const job = findJob(ctx.config, name);
  const now = new Date();
  const request = {
    job,
    from: parseTime("--from", flags.from, job.timezone ?? ctx.config.timezone),
    to: parseTime("--to", flags.to, job.timezone ?? ctx.config.timezone, true),
    now,
    wide: flags.allowWide === true,
  };
  const { backfillFires, projectBackfill, saveBackfill } = await import("../plans/backfill.js");
  backfillFires(job, ctx.config.timezone, request); // a bad window is refused before anything is opened
  const author = await planAuthor(flags.as, flags.key);
  const [database, reseller] = await Promise.all([openLedger(ctx), ctx.reseller()]);
  const deps = { database, reseller, config: ctx.config, logger: ctx.logger };
  const deciding = progressReporter<ProjectionProgress>(
    (p, elapsed) => `backfill: ${countLine(firesDecided(p), elapsed)}`,
    ctx.logger,
  );
  const backfill = await projectBackfill(deps, request, deciding.update).finally(deciding.done);
  if (backfill.projection.totals.unknown > 0)
    throw new TopsyncError(
      "PLAN_INCOMPLETE",
      `cannot plan the backfill: the reseller's plans of ${[...backfill.projection.unavailable].join(", ") || "some networks"} could not be read; nothing was bought`,
    );
  const failed = backfill.projection.runs.find((run) => run.error);
  if (failed) throw new DataError(`job ${failed.job}: ${failed.error}`, "RECIPIENTS_FILE");
  const state = await readJobState(database.db, name);
  warnBeforeFirstSeen(ctx, backfill, state?.firstSeen ?? now);
  if (flags.dryRun || backfill.toBuy === 0) {
    printBackfill(ctx, backfill, flags.dryRun ? "dry run — nothing was bought or written" : undefined);
    return;
  }
  if (!flags.save && state && state.state !== "active")
    throw new UsageError(
      `job "${name}" is ${state.state}${state.note ? ` (${state.note})` : ""}: a backfill would stay queued; resume it first, or save the backfill with --save FILE`,
      "JOB_STOPPED",
    );
  const saved = await saveBackfill({ database, config: ctx.config }, backfill, {
    now,
    author,
    configDigest: configDigest(ctx.configFile),
    file: flags.save,
  });
  const { plan } = saved;
  if (flags.save || plan.approvals_required > 0) {
    printBackfill(ctx, backfill, undefined, {
      plan: plan.plan_id,
      status: saved.row.status,
      approvals: plan.approvals_required,
      file: flags.save,
      expires: plan.expires_at,
    });
    return;
  }
  await applyBackfill(ctx, database, reseller, plan.plan_id, backfill);
}

/**
 * Purchases are known by the job's name and fire times: fires from before the job first appeared were never the
 * job's to buy, and whatever bought them then (the job under another name or schedule) is not seen as their buyer.
 */
function warnBeforeFirstSeen(ctx: CommandContext, backfill: Backfill, firstSeen: Date): void {
  const early = backfill.missing.filter((f) => f.fireTime.getTime() < firstSeen.getTime() && f.toBuy > 0);
  if (early.length === 0) return;
  const buys = early.reduce((n, f) => n + f.toBuy, 0);
  ctx.logger.warn(
    { job: backfill.job, fires: early.length, purchases: buys },
    `${early.length} of the fires to backfill (${buys} purchases) are from before job ${backfill.job} first appeared ` +
      `(${formatInstant(firstSeen, backfill.timezone)} ${backfill.timezone}): purchases are known by the job's name and ` +
      "fire time, so if it ran then under another name or at other times, what it bought then would be bought again",
  );
}

async function applyBackfill(
  ctx: CommandContext,
  database: Awaited<ReturnType<typeof openLedger>>,
  reseller: Awaited<ReturnType<CommandContext["reseller"]>>,
  planId: string,
  backfill: Backfill,
): Promise<void> {
  const [{ applyPurchasePlan }, { gateFor }] = await Promise.all([
    import("../plans/apply-purchases.js"),
    import("./approval-gate.js"),
  ]);
  const gate = await gateFor(ctx, database);
  const deps = { database, reseller, config: ctx.config, logger: ctx.logger, actor: cliActor(), gate };
  const buying = progressReporter<RunProgress>(
    (p) =>
      `backfill: claimed ${p.claimed}  submitted ${p.submitted}  succeeded ${p.succeeded}  failed ${p.failed}  ` +
      `rejected ${p.rejected}  in_doubt ${p.inDoubt}  spent ${formatMoney(p.committed)}`,
    ctx.logger,
  );
  const { value: result, signal } = await stoppable(ctx.logger, (signal) =>
    applyPurchasePlan(deps, planId, {
      stale: "refuse",
      onProgress: (p) => buying.update({ ...p }),
      signal,
    }).finally(buying.done),
  );
  if (result.kind === "refused")
    throw new TopsyncError(
      "PLAN_REFUSED",
      `backfill refused: ${result.reasons.join("; ")}${result.stale.map((s) => `\n  ${s.code}: ${s.why}`).join("")}`,
      ExitCode.failure,
    );
  if (result.kind === "already_applied") return;
  const { summary } = result;
  if (ctx.globals.json)
    write(
      renderJson({
        ...backfillJson(backfill),
        plan_id: planId,
        result: result.finished ? "applied" : result.plan.status === "expired" ? "expired" : "applying",
        run: summary,
      }),
    );
  else {
    printBackfill(ctx, backfill);
    write(
      `backfill plan ${planId}: ${summary.claimed} claimed, ${summary.succeeded} succeeded, ${summary.failed} failed, ` +
        `${summary.rejected} rejected, ${summary.inDoubt} in_doubt; spent ${formatMoney(summary.committed)}\n`,
    );
  }
  if (summary.stoppedBy) throw new TopsyncError("RUN_STOPPED", `the run stopped: ${summary.stoppedBy}`);
  throwIfStopped(signal, `is not bought (\`topsync apply ${planId}\` buys the rest)`);
  if (summary.failed + summary.rejected + summary.inDoubt > 0 || !result.finished)
    process.exitCode = ExitCode.failure;
}

interface SavedNote {
  plan: string;
  status: string;
  approvals: number;
  file?: string;
  expires: string;
}

function backfillJson(b: Backfill) {
  return {
    job: b.job,
    from: b.from.toISOString(),
    to: b.to.toISOString(),
    fires_in_window: b.firesInWindow,
    missing_fires: b.missing.map((f) => ({
      fire_time: f.fireTime.toISOString(),
      recipients: f.recipients,
      missing: f.missing,
      to_buy: f.toBuy,
      rejected: f.rejected,
      cost: f.cost.toFixed(2),
    })),
    by_day: b.byDay.map((d) => ({
      day: d.day,
      fires: d.fires,
      purchases: d.purchases,
      cost: d.cost.toFixed(2),
    })),
    to_buy: b.toBuy,
    rejected: b.rejected,
    total: b.total.toFixed(2),
  };
}

function printBackfill(ctx: CommandContext, b: Backfill, header?: string, saved?: SavedNote): void {
  if (ctx.globals.json) {
    write(
      renderJson({
        ...backfillJson(b),
        ...(saved
          ? {
              plan_id: saved.plan,
              status: saved.status,
              approvals_required: saved.approvals,
              file: saved.file ?? null,
              expires_at: saved.expires,
            }
          : {}),
      }),
    );
    return;
  }
  if (header) write(`${header}\n`);
  write(
    `job ${b.job}, ${formatInstant(b.from, b.timezone)} … ${formatInstant(b.to, b.timezone)} (${b.timezone}): ${b.firesInWindow} fires, ` +
      `${b.missing.length} with missing recipients; would buy ${b.toBuy} for ${formatMoney(b.total)}` +
      `${b.rejected ? `, ${b.rejected} would be rejected` : ""}\n`,
  );
  if (b.missing.length > 0) {
    write(
      renderTable(b.missing, [
        // On the job's clock, as its schedule is written and jobs list shows it (--json gives ISO instants).
        { header: "FIRE", value: (f) => fireLabel(f.fireTime, b.timezone) },
        { header: "RECIPIENTS", value: (f) => String(f.recipients), align: "right" },
        { header: "MISSING", value: (f) => String(f.missing), align: "right" },
        { header: "BUY", value: (f) => String(f.toBuy), align: "right" },
        { header: "REJECT", value: (f) => String(f.rejected), align: "right" },
        { header: "COST", value: (f) => formatMoney(f.cost), align: "right" },
      ]),
    );
    write("\nspend by day of the fires:\n");
    write(
      renderTable(b.byDay, [
        { header: "DAY", value: (d) => d.day },
        { header: "FIRES", value: (d) => String(d.fires), align: "right" },
        { header: "PURCHASES", value: (d) => String(d.purchases), align: "right" },
        { header: "COST", value: (d) => formatMoney(d.cost), align: "right" },
      ]),
    );
  }
  if (b.toBuy === 0 && !header) write("nothing is missing: nothing was bought\n");
  if (saved) {
    write(
      `${saved.file ? `saved plan ${saved.plan} to ${saved.file}` : `held as saved plan ${saved.plan}`}; ` +
        (saved.approvals > 0
          ? `needs ${saved.approvals} approval${saved.approvals > 1 ? "s" : ""} before ${saved.expires}: topsync approve ${saved.file ?? saved.plan} --as NAME --key KEYFILE, then topsync apply ${saved.file ?? saved.plan}\n`
          : `apply it before ${saved.expires}: topsync apply ${saved.file ?? saved.plan}\n`),
    );
    write("nothing was bought yet\n");
  }
}

/** An instant on a job's clock: its minute, and its second when it has one (a six-field schedule). */
function fireLabel(instant: Date, timeZone: string): string {
  const second = instant.getUTCSeconds();
  return `${formatInstant(instant, timeZone)}${second ? `:${String(second).padStart(2, "0")}` : ""}`;
}

/**
 * An ISO time or date; without an offset, read on the job's clock (`timeZone`), never the machine's. A date alone
 * is the start of that day there, or its end for the end of the window (`endOfDay`), which includes it.
 */
function parseTime(flag: string, text: string, timeZone: string, endOfDay = false): Date {
  const time = zonedInstant(text, timeZone, endOfDay);
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}|$)/.test(text) || time === undefined)
    throw new UsageError(
      `${flag} must be an ISO time like 2026-12-01T08:00:00+01:00 or a date, got "${text}"`,
    );
  return time;
}
