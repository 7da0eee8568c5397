import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  findJob,
  projectRun,
  runPurchasePass
} from "./chunk-RWY4LPCE.js";
import "./chunk-2ULZMUG3.js";
import "./chunk-INE77FG5.js";
import "./chunk-NFUL76TY.js";
import "./chunk-Q5CGDVWJ.js";
import "./chunk-JUEWK5GU.js";
import {
  projectionJson
} from "./chunk-A6M26WNP.js";
import "./chunk-AGXQD3VJ.js";
import {
  openLedger
} from "./chunk-JK5CIMQN.js";
import "./chunk-LFLOYXGR.js";
import {
  write
} from "./chunk-NOWJV5E2.js";
import "./chunk-JZURMT7Q.js";
import {
  maskPhone
} from "./chunk-CTB3ORUE.js";
import {
  ITEMS_KEPT
} from "./chunk-5OWKPJYZ.js";
import "./chunk-BZFDKSYR.js";
import {
  renderJson,
  renderTable
} from "./chunk-PKFIHURA.js";
import "./chunk-IIT3DDOC.js";
import "./chunk-R6NDLW6F.js";
import {
  firesBetween,
  latestFire,
  onDemandFire
} from "./chunk-IVUYQY7E.js";
import "./chunk-VGVPC3PQ.js";
import "./chunk-76UW4DC7.js";
import "./chunk-Y6YROLBT.js";
import "./chunk-VAUR3CNU.js";
import "./chunk-5653Z76Z.js";
import "./chunk-WW7OP26R.js";
import "./chunk-EBZNZK5S.js";
import "./chunk-BH4POYA2.js";
import "./chunk-TEJ6QTWI.js";
import "./chunk-4DGXMM26.js";
import {
  DataError,
  ExitCode,
  TopsyncError,
  UsageError
} from "./chunk-3SYTADOT.js";
import {
  formatMoney
} from "./chunk-57HFVDAX.js";
import "./chunk-TULZGMTI.js";
import "./chunk-FBKOPLBK.js";
import "./chunk-V4RWK56N.js";

// dist/cli/purchases-run.js
import { dirname } from "node:path";

// dist/purchases/fire-time.js
var DAY = 864e5;
function explicitFire(job, globalTimeZone, time) {
  if (job.schedule) {
    const timeZone = job.timezone ?? globalTimeZone;
    const six = job.schedule.trim().split(/\s+/).length === 6;
    const step = six ? 1e3 : 6e4;
    const slot = new Date(Math.floor(time.getTime() / step) * step);
    if (latestFire(job.schedule, timeZone, slot, 1)?.getTime() === slot.getTime())
      return slot;
    const reach = six ? DAY : 31 * DAY;
    const before = latestFire(job.schedule, timeZone, new Date(slot.getTime() - step), reach);
    const [after] = firesBetween(job.schedule, timeZone, slot, new Date(slot.getTime() + reach), 1);
    throw notAFire(job, `its schedule "${job.schedule}" (${timeZone})`, time, [before, after]);
  }
  if (job.at) {
    if (Math.floor(time.getTime() / 1e3) === Math.floor(job.at.getTime() / 1e3))
      return job.at;
    throw notAFire(job, "its `at`", time, [job.at]);
  }
  return onDemandFire(time);
}
function notAFire(job, what, time, nearest) {
  const found = nearest.filter((d) => d !== void 0).map((d) => d.toISOString());
  const hint = found.length > 0 ? `; the nearest fires are ${found.join(" and ")}` : "; it has no fire near it";
  return new UsageError(`--fire-time ${time.toISOString()} is not a fire of job "${job.name}" by ${what}${hint}`, "NOT_A_FIRE");
}

// dist/cli/progress.js
function progressReporter(render, logger, intervalMs = 5e3) {
  const tty = process.stderr.isTTY === true;
  let latest;
  let lastWrite = 0;
  const every = tty ? 150 : intervalMs;
  const timer = setInterval(() => flush(), every);
  timer.unref();
  function flush() {
    if (latest === void 0 || Date.now() - lastWrite < every - 5)
      return;
    lastWrite = Date.now();
    if (tty)
      process.stderr.write(`\r\x1B[2K${render(latest)}`);
    else
      logger.info(render(latest));
  }
  return {
    update(value) {
      latest = value;
    },
    done() {
      clearInterval(timer);
      if (tty && latest !== void 0)
        process.stderr.write(`\r\x1B[2K${render(latest)}
`);
    }
  };
}

// dist/cli/purchases-run.js
async function purchasesRunCommand(ctx, flags) {
  if (flags.now && flags.fireTime)
    throw new UsageError("give --now or --fire-time, not both");
  if ((flags.now || flags.fireTime) && !flags.job)
    throw new UsageError("--now and --fire-time need --job NAME");
  const now = /* @__PURE__ */ new Date();
  const job = flags.job ? findJob(ctx.config, flags.job) : void 0;
  const fireTime = job && flags.fireTime ? explicitFire(job, ctx.config.timezone, parseFireTime(flags.fireTime)) : flags.now ? onDemandFire(now) : void 0;
  if (job && !fireTime && !job.schedule && !job.at) {
    throw new UsageError(`job "${job.name}" has no schedule or at; run it with --now or --fire-time`);
  }
  const database = await openLedger(ctx);
  const actor = `cli:${process.pid}`;
  const deps = { database, reseller: ctx.reseller(), config: ctx.config, logger: ctx.logger, actor };
  const request = { now, job, fireTime, configDir: dirname(ctx.configFile) };
  if (flags.dryRun)
    return printDryRun(ctx, await projectRun(deps, request, ITEMS_KEPT), flags.showPhone === true);
  const progress = progressReporter(renderProgress, ctx.logger);
  let pass;
  try {
    pass = await runPurchasePass(deps, request, { onProgress: (p) => progress.update({ ...p }) });
  } finally {
    progress.done();
  }
  const summary = pass.summary;
  printSummary(ctx, summary, pass.intake);
  if (summary.stoppedBy)
    throw new TopsyncError("RUN_STOPPED", `the run stopped: ${summary.stoppedBy}`, ExitCode.failure);
}
function parseFireTime(text) {
  const time = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(text) || Number.isNaN(time.getTime())) {
    throw new DataError(`--fire-time must be an ISO time like 2026-12-01T08:00:00+01:00, got "${text}"`);
  }
  return time;
}
function renderProgress(p) {
  return `claimed ${p.claimed}  submitted ${p.submitted}  succeeded ${p.succeeded}  failed ${p.failed}  rejected ${p.rejected}  in_doubt ${p.inDoubt}  retrying ${p.retried}  verifying ${p.verifying}  spent ${formatMoney(p.committed)}`;
}
function printSummary(ctx, s, intake) {
  if (ctx.globals.json) {
    write(renderJson({ ...s, intake }));
    return;
  }
  write(`purchases run ${s.runId}: ${s.claimed} claimed, ${s.succeeded} succeeded, ${s.failed} failed, ${s.rejected} rejected, ${s.inDoubt} in_doubt, ${s.unverified} unverified${s.unsent ? `, ${s.unsent} given back unsent` : ""}; committed ${formatMoney(s.committed)}${intake ? `; ${intake} intake requests queued` : ""}
`);
  if (s.inDoubt > 0) {
    write(`${s.inDoubt} purchases are in doubt: see \`topsync purchases list --state in_doubt\` and settle each with \`topsync purchases resolve\`
`);
  }
}
function printDryRun(ctx, projection, showPhone) {
  const { totals } = projection;
  if (ctx.globals.json)
    write(renderJson(projectionJson(projection, { showPhone })));
  else {
    const phone = (p) => showPhone ? p : maskPhone(p);
    write(`dry run \u2014 nothing was bought or written
`);
    write(`would buy ${totals.toBuy} for ${formatMoney(totals.cost)}; would reject ${totals.rejected}; ${totals.existing + totals.duplicates} not bought again (already in the ledger, or listed twice)${totals.unknown ? `; ${totals.unknown} unknown (the reseller's plans could not be read)` : ""}
`);
    if (projection.byNetwork.length > 0) {
      write(renderTable(projection.byNetwork, [
        { header: "NETWORK", value: (n) => n.network },
        { header: "PURCHASES", value: (n) => String(n.count), align: "right" },
        { header: "COST", value: (n) => formatMoney(n.cost), align: "right" }
      ]));
    }
    const rejected = projection.items.filter((i) => i.outcome === "reject" || i.outcome === "unknown");
    if (rejected.length > 0) {
      write("\nwould reject:\n");
      write(renderTable(rejected, [
        { header: "PHONE", value: (i) => phone(i.phone) },
        { header: "JOB", value: (i) => i.job ?? i.source },
        { header: "REASON", value: (i) => `${i.code}: ${i.reason}` }
      ]));
    }
    if (projection.itemsOmitted > 0)
      write(`(the first ${ITEMS_KEPT} candidates are listed; ${projection.itemsOmitted} more are counted above)
`);
  }
  const failed = projection.runs.find((run) => run.error);
  if (failed)
    throw new DataError(`job ${failed.job}: ${failed.error}`, "RECIPIENTS_FILE");
}
export {
  purchasesRunCommand
};
