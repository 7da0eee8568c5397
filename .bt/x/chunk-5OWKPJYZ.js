import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);

// dist/cli/report-commands.js
var ITEMS_KEPT = 1e4;
async function planCommand(ctx, flags, deps = {}) {
  const out = await import("./report-output-ZHBIWUMP.js");
  const windowMs = out.parseWindow(flags.window ?? "24h");
  const format = out.parseFormat(flags.format, ctx.globals.json);
  if (flags.out)
    out.checkOut(flags.out);
  const [{ makeForecast }, { forecastDocument }, { forecastJson }, { renderReport }, { TopsyncError }] = await Promise.all([
    import("./forecast-77CPTVHQ.js"),
    import("./forecast-document-CJBZ3QMH.js"),
    import("./forecast-json-LO4HIKMF.js"),
    import("./render-DS6GGER5.js"),
    import("./errors-EUBLKOO4.js")
  ]);
  const database = deps.database ?? await (await import("./database-W3ZX4FYZ.js")).openLedger(ctx);
  const report = await makeForecast({
    db: database.db,
    reseller: ctx.reseller(),
    analytics: ctx.analytics(),
    config: ctx.config,
    logger: ctx.logger
  }, { now: /* @__PURE__ */ new Date(), windowMs, keepItems: ITEMS_KEPT });
  const showPhone = flags.showPhone === true;
  const text = renderReport(format, {
    document: () => forecastDocument(report, { showPhone }),
    json: () => forecastJson(report, { showPhone })
  });
  out.deliver(deps.io ?? out.processReportIo, text, flags.out, "the plan");
  if (!report.complete) {
    const parts = report.unknown.map((u) => `${u.part} (${u.reason})`).join("; ");
    throw new TopsyncError("PLAN_INCOMPLETE", `the plan is incomplete, marked so above: unknown ${parts}`);
  }
  return flags.detailedExitcode && report.pending ? 2 : 0;
}
async function reportCommand(ctx, flags, deps = {}) {
  const [out, { parseSince }] = await Promise.all([
    import("./report-output-ZHBIWUMP.js"),
    import("./purchases-ledger-ADBUUCDP.js")
  ]);
  const since = parseSince(flags.since ?? "7d");
  const format = out.parseFormat(flags.format, ctx.globals.json);
  if (flags.out)
    out.checkOut(flags.out);
  const [{ makeLedgerReport }, { ledgerDocument }, { ledgerJson }, { renderReport }] = await Promise.all([
    import("./ledger-3HL7NCW4.js"),
    import("./ledger-document-3COZ2CS7.js"),
    import("./ledger-json-I4N65ONY.js"),
    import("./render-DS6GGER5.js")
  ]);
  const database = deps.database ?? await (await import("./database-W3ZX4FYZ.js")).openLedger(ctx);
  const report = await makeLedgerReport(database.db, {
    now: /* @__PURE__ */ new Date(),
    since,
    timeZone: ctx.config.timezone
  });
  const showPhone = flags.showPhone === true;
  const text = renderReport(format, {
    document: () => ledgerDocument(report, { showPhone }),
    json: () => ledgerJson(report, { showPhone })
  });
  out.deliver(deps.io ?? out.processReportIo, text, flags.out, "the report");
  return 0;
}
async function demoReports(ctx, database) {
  const io = (await import("./report-output-ZHBIWUMP.js")).processReportIo;
  io.out("\n== plan: what topsync would buy and change in the next 24h (a dry run) ==\n");
  await planCommand(ctx, { window: "24h", format: "text" }, { io, database });
  io.out("\n== report: what topsync did ==\n");
  await reportCommand(ctx, { since: "24h", format: "text" }, { io, database });
}
function exitWith(code) {
  if (code !== 0)
    process.exitCode = code;
}
function registerReportCommands(program, withContext) {
  program.command("plan").description("what topsync would buy and change in the next --window, with costs, budgets and the wallet (changes nothing)").option("--window <duration>", "how far ahead to plan, e.g. 24h or 7d", "24h").option("--format <format>", "text, markdown, json or html (default text; json with --json)").option("--out <file>", "write the plan to this file (replaced whole) instead of stdout").option("--detailed-exitcode", "exit 0 when nothing is pending, 2 when purchases or website changes are, 1 on error").option("--show-phone", "print phone numbers unmasked").action(withContext(async (ctx, flags) => exitWith(await planCommand(ctx, flags))));
  program.command("report").description("what topsync did: spend by day, network and job, outcomes, what needs a person, website passes").option("--since <when>", "a duration back from now (7d, 24h) or a date (2026-11-01)", "7d").option("--format <format>", "text, markdown, json or html (default text; json with --json)").option("--out <file>", "write the report to this file (replaced whole) instead of stdout").option("--show-phone", "print phone numbers unmasked").action(withContext(async (ctx, flags) => exitWith(await reportCommand(ctx, flags))));
}

export {
  ITEMS_KEPT,
  demoReports,
  registerReportCommands
};
