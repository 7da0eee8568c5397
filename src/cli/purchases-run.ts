// `topsync purchases run [--job N] [--now | --fire-time T] [--dry-run]`: do what is due once and exit.
import { dirname } from "node:path";
import { DataError, ExitCode, TopsyncError, UsageError } from "../errors.js";
import { maskPhone } from "../log/mask.js";
import { formatMoney } from "../money.js";
import { loadCatalogue } from "../purchases/catalogue-cache.js";
import type { RunProgress, RunSummary } from "../purchases/executor.js";
import { explicitFire } from "../purchases/fire-time.js";
import type { PurchaseProjection } from "../purchases/projection.js";
import type { ProjectionProgress } from "../purchases/projection-read.js";
import { findJob, type PassResult, projectRun, runPurchasePass } from "../purchases/run-once.js";
import { heldRunNotes } from "../report/approvals-view.js";
import { projectionJson } from "../report/forecast-json.js";
import { runLabel } from "../report/forecast-purchase-blocks.js";
import { onDemandFire } from "../time/fires.js";
import { zonedInstant } from "../time/zoned.js";
import { cliActor, gateFor } from "./approval-gate.js";
import type { CommandContext } from "./context.js";
import { openLedger } from "./database.js";
import { renderJson, renderTable, write } from "./output.js";
import { personText } from "./person-text.js";
import { countLine, progressReporter, runsDecided } from "./progress.js";
import { ITEMS_KEPT } from "./report-commands.js";
import { stoppable, throwIfStopped } from "./signals.js";

export interface RunFlags {
  job?: string;
  now?: boolean;
  fireTime?: string;
  dryRun?: boolean;
  showPhone?: boolean;
  force?: boolean;
  reason?: string;
}

export async function purchasesRunCommand(ctx: CommandContext, flags: RunFlags): Promise<void> {
  if (flags.now && flags.fireTime) throw new UsageError("give --now or --fire-time, not both");
  if ((flags.now || flags.fireTime) && !flags.job)
    throw new UsageError("--now and --fire-time need --job NAME");
  const now = new Date();
  const job = flags.job ? findJob(ctx.config, flags.job) : undefined;
  const fireTime =
    job && flags.fireTime
      ? explicitFire(
          job,
          ctx.config.timezone,
          parseFireTime(flags.fireTime, job.timezone ?? ctx.config.timezone),
        )
      : flags.now
        ? onDemandFire(now)
        : undefined;
  if (flags.force && !flags.job) throw new UsageError("--force needs --job NAME");
  const reason = personText(flags.reason, "--reason");
  if (flags.force && !reason)
    throw new UsageError("--force needs --reason TEXT: why the job runs although it is suspended or paused");
  if (job && !fireTime && !job.schedule && !job.at) {
    throw new UsageError(`job "${job.name}" has no schedule or at; run it with --now or --fire-time`);
  }
  // The reseller's client is made while the database connects; a run that buys reads the catalogue meanwhile
  // too (it needs the provider only), so its first purchase does not wait for the ledger and then the catalogue.
  const resellerReady = ctx.reseller();
  const cataloguing = flags.dryRun
    ? undefined
    : resellerReady.then((client) => loadCatalogue(client, ctx.logger));
  cataloguing?.catch(() => undefined);
  const [database, reseller] = await Promise.all([openLedger(ctx), resellerReady]);
  const actor = `cli:${process.pid}`;
  const gate = flags.dryRun ? undefined : await gateFor(ctx, database);
  const deps = { database, reseller, config: ctx.config, logger: ctx.logger, actor, gate };
  const force = flags.force && reason ? { actor: cliActor(), reason } : undefined;
  const request = { now, job, fireTime, configDir: dirname(ctx.configFile), force };
  if (flags.dryRun) {
    const deciding = progressReporter<ProjectionProgress>(
      (p, elapsed) => countLine(runsDecided(p), elapsed),
      ctx.logger,
    );
    const projection = await projectRun(deps, request, ITEMS_KEPT, deciding.update).finally(deciding.done);
    return printDryRun(ctx, projection, flags.showPhone === true);
  }

  const progress = progressReporter<RunProgress>(renderProgress, ctx.logger);
  const { value: pass, signal } = await stoppable(ctx.logger, (signal) =>
    runPurchasePass(deps, request, {
      onProgress: (p) => progress.update({ ...p }),
      catalogue: cataloguing,
      signal,
    }).finally(progress.done),
  );
  const summary = pass.summary;
  printSummary(ctx, summary, pass);
  if (summary.stoppedBy)
    throw new TopsyncError("RUN_STOPPED", `the run stopped: ${summary.stoppedBy}`, ExitCode.failure);
  throwIfStopped(signal, "stays queued for the next run");
}

/** An ISO time; without an offset, read on the job's clock (`timeZone`), never the machine's. */
function parseFireTime(text: string, timeZone: string): Date {
  const time = zonedInstant(text, timeZone);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(text) || time === undefined) {
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

function printSummary(
  ctx: CommandContext,
  s: RunSummary,
  { intake, intakeRefused }: Pick<PassResult, "intake" | "intakeRefused">,
): void {
  if (ctx.globals.json) {
    write(renderJson({ ...s, intake, intake_refused: intakeRefused }));
    return;
  }
  const queued = intake - intakeRefused;
  write(
    `purchases run ${s.runId}: ${s.claimed} claimed, ${s.succeeded} succeeded, ${s.failed} failed, ${s.rejected} rejected, ` +
      `${s.inDoubt} in_doubt, ${s.unverified} unverified${s.unsent ? `, ${s.unsent} given back unsent` : ""}; committed ${formatMoney(s.committed)}` +
      `${intake ? `; ${intake} intake requests taken: ${queued} queued${intakeRefused ? `, ${intakeRefused} refused (purchase_requests.error says why)` : ""}` : ""}\n`,
  );
  for (const held of s.held) {
    write(
      `held for approval: ${held.purchases} purchases for ${held.total} as saved plan ${held.plan}, needing ${held.approvalsRequired} approval${held.approvalsRequired === 1 ? "" : "s"} before ${held.expiresAt}; ` +
        `approve with \`topsync approve ${held.plan} --as NAME --key KEYFILE\`; the next run (or \`topsync apply ${held.plan}\`) buys them\n`,
    );
  }
  if (s.inDoubt > 0) {
    write(
      `${s.inDoubt} purchases are in doubt: see \`topsync purchases list --state in_doubt\` and settle each with \`topsync purchases resolve\`\n`,
    );
  }
}

/** The projection as the dry run shows it; the JSON is the projection itself. */
function printDryRun(ctx: CommandContext, projection: PurchaseProjection, showPhone: boolean): void {
  const { totals } = projection;
  if (ctx.globals.json) write(renderJson(projectionJson(projection, { showPhone })));
  else {
    const phone = (p: string) => (showPhone ? p : maskPhone(p));
    write(`dry run — nothing was bought or written\n`);
    write(
      `would buy ${totals.toBuy} for ${formatMoney(totals.cost)}; would reject ${totals.rejected}; ` +
        `${totals.existing + totals.duplicates} not bought again (already in the ledger, or listed twice)` +
        `${totals.unknown ? `; ${totals.unknown} unknown (the reseller's plans could not be read)` : ""}\n`,
    );
    for (const note of heldRunNotes(ctx.config, projection.runs, (r) => runLabel(r, (d) => d.toISOString())))
      write(`${note}\n`);
    if (projection.byNetwork.length > 0) {
      write(
        renderTable(projection.byNetwork, [
          { header: "NETWORK", value: (n) => n.network },
          { header: "PURCHASES", value: (n) => String(n.count), align: "right" },
          { header: "COST", value: (n) => formatMoney(n.cost), align: "right" },
        ]),
      );
    }
    const rejected = projection.items.filter((i) => i.outcome === "reject" || i.outcome === "unknown");
    if (rejected.length > 0) {
      write("\nwould reject:\n");
      write(
        renderTable(rejected, [
          { header: "PHONE", value: (i) => phone(i.phone) },
          // A pass may hold several fires of a job (catch-up) and the queue: the same phone may be in each.
          { header: "RUN", value: (i) => runLabel(projection.runs[i.run]!, (d) => d.toISOString()) },
          { header: "REASON", value: (i) => `${i.code}: ${i.reason}` },
        ]),
      );
    }
    if (projection.itemsOmitted > 0)
      write(
        `(the first ${ITEMS_KEPT} candidates are listed; ${projection.itemsOmitted} more are counted above)\n`,
      );
  }
  const failed = projection.runs.find((run) => run.error);
  if (failed) throw new DataError(`job ${failed.job}: ${failed.error}`, "RECIPIENTS_FILE");
}
