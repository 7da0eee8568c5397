// `topsync plan` (what would be bought and changed, changing nothing) and `topsync report` (what happened).
// Thin: check the flags, build the report, render it. Heavy modules load only when a command runs.
import type { Command } from "commander";
import type { AnalyticsClient, ListingProgress } from "../analytics/client.js";
import type { Database } from "../db/client.js";
import type { ProjectionProgress } from "../purchases/projection-read.js";
import type { ForecastProgress } from "../report/forecast-gather.js";
import type { CommandContext } from "./context.js";
import { countLine, paceOf, pagesRead, progressReporter, runsDecided } from "./progress.js";
import type { ReportIo } from "./report-output.js";

/** Candidates a plan lists one by one; beyond this they are counted (a CSV of a million rows stays in memory bounds). */
export const ITEMS_KEPT = 10_000;

export interface PlanFlags {
  window?: string;
  format?: string;
  out?: string;
  detailedExitcode?: boolean;
  showPhone?: boolean;
}

export interface ReportFlags {
  since?: string;
  format?: string;
  out?: string;
  showPhone?: boolean;
}

/** Where a command writes, and a database the caller already has open (the demo); tests pass their own. */
export interface ReportDeps {
  io?: ReportIo;
  database?: Database;
}

/**
 * The combined dry-run plan. Returns 0, or 2 with --detailed-exitcode when something is pending; throws
 * (exit 1) after printing it when a part is unknown, so an incomplete plan never passes for a whole one.
 */
export async function planCommand(
  ctx: CommandContext,
  flags: PlanFlags,
  deps: ReportDeps = {},
): Promise<number> {
  const out = await import("./report-output.js");
  const windowMs = out.parseWindow(flags.window ?? "24h");
  const format = out.parseFormat(flags.format, ctx.globals.json);
  if (flags.out) out.checkOut(flags.out);
  const [
    { makeForecast },
    { forecastDocument },
    { forecastJson },
    { renderReport },
    { TopsyncError },
    { loadCatalogue },
  ] = await Promise.all([
    import("../report/forecast.js"),
    import("../report/forecast-document.js"),
    import("../report/forecast-json.js"),
    import("../report/render.js"),
    import("../errors.js"),
    import("../purchases/catalogue-cache.js"),
  ]);
  const { openLedger } = await import("./database.js");
  // The services' clients are made, and the reseller's catalogue read, while the ledger opens: the forecast needs
  // the catalogue only to project the purchases (as `purchases run` reads it while it writes its first rows).
  const resellerReady = ctx.reseller();
  const analyticsReady = ctx.analytics();
  const catalogue = resellerReady.then((reseller) => loadCatalogue(reseller, ctx.logger));
  catalogue.catch(() => undefined); // the forecast's to report; observed here for a ledger that fails to open
  const [database, reseller, analytics] = await Promise.all([
    deps.database ?? openLedger(ctx),
    resellerReady,
    analyticsReady,
  ]);
  const progress = forecastProgress(ctx, analytics);
  const report = await makeForecast(
    {
      db: database.db,
      reseller,
      catalogue,
      analytics,
      config: ctx.config,
      logger: ctx.logger,
      onProgress: progress.update,
    },
    { now: new Date(), windowMs, keepItems: ITEMS_KEPT },
  ).finally(progress.done);
  const showPhone = flags.showPhone === true;
  const text = renderReport(format, {
    document: () => forecastDocument(report, { showPhone }),
    json: () => forecastJson(report, { showPhone }),
  });
  out.deliver(deps.io ?? out.processReportIo, text, flags.out, "the plan");
  if (!report.complete) {
    const parts = report.unknown.map((u) => `${u.part} (${u.reason})`).join("; ");
    throw new TopsyncError("PLAN_INCOMPLETE", `the plan is incomplete, marked so above: unknown ${parts}`);
  }
  return flags.detailedExitcode && report.pending ? 2 : 0;
}

/** The plan's one progress line: the websites' pages read and the purchases' runs decided, as each goes. */
function forecastProgress(ctx: CommandContext, analytics: AnalyticsClient) {
  const latest: { websites?: ListingProgress; purchases?: ProjectionProgress } = {};
  const reporter = progressReporter<typeof latest>((p, elapsed) => {
    const parts: string[] = [];
    if (p.websites)
      parts.push(
        `websites: ${countLine(pagesRead(p.websites, paceOf("analytics", analytics.http.pace())), elapsed)}`,
      );
    if (p.purchases) parts.push(`purchases: ${countLine(runsDecided(p.purchases), elapsed)}`);
    return parts.join("; ");
  }, ctx.logger);
  return {
    update(progress: ForecastProgress) {
      if (progress.part === "websites") latest.websites = progress;
      else latest.purchases = progress;
      reporter.update(latest);
    },
    done: reporter.done,
  };
}

/** What happened since --since: spend, outcomes, what needs a person, website passes. */
export async function reportCommand(
  ctx: CommandContext,
  flags: ReportFlags,
  deps: ReportDeps = {},
): Promise<number> {
  const [out, { parseSince }] = await Promise.all([
    import("./report-output.js"),
    import("./purchases-ledger.js"),
  ]);
  const since = parseSince(flags.since ?? "7d", ctx.config.timezone);
  const format = out.parseFormat(flags.format, ctx.globals.json);
  if (flags.out) out.checkOut(flags.out);
  const [{ makeLedgerReport }, { ledgerDocument }, { ledgerJson }, { renderReport }] = await Promise.all([
    import("../report/ledger.js"),
    import("../report/ledger-document.js"),
    import("../report/ledger-json.js"),
    import("../report/render.js"),
  ]);
  const database = deps.database ?? (await (await import("./database.js")).openLedger(ctx));
  const report = await makeLedgerReport(database.db, {
    now: new Date(),
    since,
    timeZone: ctx.config.timezone,
  });
  const showPhone = flags.showPhone === true;
  const text = renderReport(format, {
    document: () => ledgerDocument(report, { showPhone }),
    json: () => ledgerJson(report, { showPhone }),
  });
  out.deliver(deps.io ?? out.processReportIo, text, flags.out, "the report");
  return 0;
}

/** The end of `topsync demo`: the dry-run plan of the next day and the report of what the demo did, as text. */
export async function demoReports(ctx: CommandContext, database?: Database): Promise<void> {
  const io = (await import("./report-output.js")).processReportIo;
  io.out("\n== plan: what topsync would buy and change in the next 24h (a dry run) ==\n");
  await planCommand(ctx, { window: "24h", format: "text" }, { io, database });
  io.out("\n== report: what topsync did ==\n");
  await reportCommand(ctx, { since: "24h", format: "text" }, { io, database });
}

type WithContext = <A extends unknown[]>(
  body: (ctx: CommandContext, ...args: A) => Promise<void>,
) => (...args: A) => Promise<void>;

function exitWith(code: number): void {
  if (code !== 0) process.exitCode = code;
}

export function registerReportCommands(program: Command, withContext: WithContext): void {
  program
    .command("plan")
    .description(
      "what topsync would buy and change in the next --window, with costs, budgets and the wallet (changes nothing)",
    )
    .option("--window <duration>", "how far ahead to plan, e.g. 24h or 7d", "24h")
    .option("--format <format>", "text, markdown, json or html (default text; json with --json)")
    .option("--out <file>", "write the plan to this file (replaced whole) instead of stdout")
    .option(
      "--detailed-exitcode",
      "exit 0 when nothing is pending, 2 when purchases or website changes are, 1 on error",
    )
    .option("--show-phone", "print phone numbers unmasked")
    .action(withContext(async (ctx, flags: PlanFlags) => exitWith(await planCommand(ctx, flags))));
  program
    .command("report")
    .description(
      "what topsync did: spend by day, network and job, outcomes, what needs a person, website passes",
    )
    .option("--since <when>", "a duration back from now (7d, 24h) or a date (2026-11-01)", "7d")
    .option("--format <format>", "text, markdown, json or html (default text; json with --json)")
    .option("--out <file>", "write the report to this file (replaced whole) instead of stdout")
    .option("--show-phone", "print phone numbers unmasked")
    .action(withContext(async (ctx, flags: ReportFlags) => exitWith(await reportCommand(ctx, flags))));
}
