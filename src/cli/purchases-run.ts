// `topsync purchases run [--job N] [--now | --fire-time T] [--dry-run]`: do what is due once and exit.
import { dirname } from "node:path";
import { DataError, ExitCode, TopsyncError, UsageError } from "../errors.js";
import { maskPhone } from "../log/mask.js";
import { formatMoney } from "../money.js";
import { loadCatalogue } from "../purchases/catalogue-cache.js";
import { type DryRunReport, dryRunPurchases } from "../purchases/dry-run.js";
import { executePurchases, type RunProgress, type RunSummary } from "../purchases/executor.js";
import { findJob, firesToWrite, prepareRun, registerJobs } from "../purchases/run-once.js";
import { recordPlanPrices } from "../report/plan-prices.js";
import { atWillNotFire, onDemandFire } from "../schedule/fires.js";
import type { CommandContext } from "./context.js";
import { openLedger } from "./database.js";
import { renderJson, renderTable, write } from "./output.js";
import { progressReporter } from "./progress.js";

export interface RunFlags {
  job?: string;
  now?: boolean;
  fireTime?: string;
  dryRun?: boolean;
  showPhone?: boolean;
}

export async function purchasesRunCommand(ctx: CommandContext, flags: RunFlags): Promise<void> {
  if (flags.now && flags.fireTime) throw new UsageError("give --now or --fire-time, not both");
  if ((flags.now || flags.fireTime) && !flags.job)
    throw new UsageError("--now and --fire-time need --job NAME");
  const now = new Date();
  const job = flags.job ? findJob(ctx.config, flags.job) : undefined;
  const explicitTime = flags.fireTime
    ? parseFireTime(flags.fireTime)
    : flags.now
      ? onDemandFire(now)
      : undefined;
  if (job && !explicitTime && !job.schedule && !job.at) {
    throw new UsageError(`job "${job.name}" has no schedule or at; run it with --now or --fire-time`);
  }
  const database = await openLedger(ctx);
  const firstSeen = flags.dryRun
    ? new Map<string, Date>()
    : await registerJobs(database, ctx.config.purchases, now);
  let fires = firesToWrite(
    ctx.config,
    now,
    firstSeen,
    job && explicitTime ? { job, fireTime: explicitTime } : undefined,
  );
  if (job && !explicitTime) fires = fires.filter((f) => f.job.name === job.name);
  if (!flags.dryRun && !explicitTime) {
    for (const j of job ? [job] : ctx.config.purchases) {
      const reason = atWillNotFire(j, now, firstSeen.get(j.name));
      if (reason) ctx.logger.warn(`job ${j.name} will not fire: ${reason}`);
    }
  }

  if (flags.dryRun) {
    const report = await dryRunPurchases(
      { db: database.db, reseller: ctx.reseller(), config: ctx.config, logger: ctx.logger },
      { fires, includeQueued: true, jobName: job?.name, now },
    );
    return printDryRun(ctx, report, flags.showPhone === true);
  }

  const actor = `cli:${process.pid}`;
  const prepared = await prepareRun(database, ctx.config, {
    now,
    actor,
    configDir: dirname(ctx.configFile),
    fires,
    intake: !job,
  });
  if (prepared.swept > 0) {
    ctx.logger.warn(
      `${prepared.swept} purchases were left in submitting by a stopped run and are now in_doubt`,
    );
  }
  for (const fire of prepared.fires) {
    ctx.logger.info(
      `job ${fire.job} fire ${fire.fireTime.toISOString()}: ${fire.recipients} recipients, ${fire.inserted} new`,
    );
  }
  const catalogue = await loadCatalogue(ctx.reseller(), ctx.logger);
  const progress = progressReporter<RunProgress>(renderProgress, ctx.logger);
  let summary: RunSummary;
  try {
    summary = await executePurchases(
      { database, reseller: ctx.reseller(), config: ctx.config, logger: ctx.logger, actor },
      { jobName: job?.name, onProgress: (p) => progress.update({ ...p }), catalogue },
    );
  } finally {
    progress.done();
  }
  await recordPlanPrices(database.db, catalogue);
  printSummary(ctx, summary, prepared.intake);
  if (summary.stoppedBy)
    throw new TopsyncError("RUN_STOPPED", `the run stopped: ${summary.stoppedBy}`, ExitCode.failure);
}

function parseFireTime(text: string): Date {
  const time = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(text) || Number.isNaN(time.getTime())) {
    throw new DataError(`--fire-time must be an ISO time like 2026-12-01T08:00:00+01:00, got "${text}"`);
  }
  return time;
}

function renderProgress(p: RunProgress): string {
  return (
    `claimed ${p.claimed}  submitted ${p.submitted}  succeeded ${p.succeeded}  failed ${p.failed}  rejected ${p.rejected}` +
    `  in_doubt ${p.inDoubt}  retrying ${p.retried}  verifying ${p.verifying}  spent ${formatMoney(p.committed)}`
  );
}

function printSummary(ctx: CommandContext, s: RunSummary, intake: number): void {
  if (ctx.globals.json) {
    write(renderJson({ ...s, intake }));
    return;
  }
  write(
    `purchases run ${s.runId}: ${s.claimed} claimed, ${s.succeeded} succeeded, ${s.failed} failed, ${s.rejected} rejected, ` +
      `${s.inDoubt} in_doubt, ${s.unverified} unverified${s.unsent ? `, ${s.unsent} given back unsent` : ""}; committed ${formatMoney(s.committed)}` +
      `${intake ? `; ${intake} intake requests queued` : ""}\n`,
  );
  if (s.inDoubt > 0) {
    write(
      `${s.inDoubt} purchases are in doubt: see \`topsync purchases list --state in_doubt\` and settle each with \`topsync purchases resolve\`\n`,
    );
  }
}

function printDryRun(ctx: CommandContext, report: DryRunReport, showPhone: boolean): void {
  if (ctx.globals.json) {
    write(renderJson(report));
    return;
  }
  const phone = (p: string) => (showPhone ? p : maskPhone(p));
  write(`dry run — nothing was bought or written\n`);
  write(
    `would buy ${report.toBuy} for ${formatMoney(report.cost)}; would reject ${report.rejected}; ${report.existing} not bought again (already in the ledger, or listed twice)\n`,
  );
  const buying = Object.entries(report.byNetwork);
  if (buying.length > 0) {
    write(
      renderTable(buying, [
        { header: "NETWORK", value: ([n]) => n },
        { header: "PURCHASES", value: ([, v]) => String(v.count), align: "right" },
        { header: "COST", value: ([, v]) => v.cost, align: "right" },
      ]),
    );
  }
  const rejected = report.items.filter((i) => i.outcome === "reject");
  if (rejected.length > 0) {
    write("\nwould reject:\n");
    write(
      renderTable(rejected, [
        { header: "PHONE", value: (i) => phone(i.phone) },
        { header: "JOB", value: (i) => i.job ?? i.source },
        { header: "REASON", value: (i) => i.reason ?? "" },
      ]),
    );
  }
}
