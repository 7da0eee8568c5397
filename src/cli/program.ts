// The topsync command line: flag parsing only. Each command's module is loaded when it runs, so
// `topsync --help` stays fast. src/cli.ts starts it.
import { readFileSync } from "node:fs";
import { Command, CommanderError, Option } from "commander";
import { packageRoot } from "../package-root.js";
import { mark } from "../timings.js";
import type { CommandContext, GlobalOptions } from "./context.js";
import { registerJobsCommands } from "./jobs-commands.js";
import { registerNotifyCommands } from "./notify-commands.js";
import { registerPlanCommands } from "./plan-commands.js";
import { registerReportCommands } from "./report-commands.js";
import { registerWebsiteCommands } from "./websites-commands.js";

// src/cli.ts puts V8's flags back through it before it writes the code cache.
export { restoreRuntimeFlags } from "../v8-flags.js";

const { version } = JSON.parse(
  readFileSync(new URL("package.json", packageRoot(import.meta.url)), "utf8"),
) as {
  version: string;
};

const program = new Command("topsync")
  .description("Scheduled data top-ups with a money-safe ledger, and declarative analytics websites.")
  .version(version, "-V, --version", "print topsync's version")
  .option("-c, --config <file>", "config file", "./config.yaml")
  .addOption(
    new Option("--log-level <level>", "log level").choices([
      "trace",
      "debug",
      "info",
      "warn",
      "error",
      "fatal",
    ]),
  )
  .option("--json", "print data as JSON")
  .showHelpAfterError("(run with --help for usage)")
  .exitOverride();

/** Runs a command body with a context built from config; failures become one paragraph and an exit code. */
function withContext<A extends unknown[]>(body: (ctx: CommandContext, ...args: A) => Promise<void>) {
  return async (...args: A): Promise<void> => {
    const { openContext } = await import("./context.js");
    const ctx = await openContext(globals());
    try {
      await body(ctx, ...args);
    } finally {
      await ctx.close();
    }
  };
}

function globals(): GlobalOptions {
  return program.opts<GlobalOptions>();
}

program
  .command("demo")
  .description("start the sandbox in-process and show what topsync does against it")
  .action(async () => (await import("./demo.js")).demoCommand(globals()));

program
  .command("sandbox")
  .description("serve both simulated APIs on loopback until stopped")
  .option("--reseller-port <port>", "reseller port", "4010")
  .option("--analytics-port <port>", "analytics port", "4020")
  .option("--receiver-port <port>", "notification receivers' port (Slack, Telegram, webhook)", "4030")
  .option("--host <host>", "address to listen on", "127.0.0.1")
  .option("--latency <ms>", "added latency per request in ms", "0")
  .option("--seed <n>", "seed for outcomes and faults", "1")
  .option("--faults <file>", "fault injection file (JSON or YAML)")
  .option("--fail-rate <share>", "share of purchases that end failed", "0")
  .option("--reverse-rate <share>", "share of purchases that end reversed", "0")
  .option("--wallet <amount>", "starting wallet balance", "1000000.00")
  .option("--websites <n>", "seed this many websites", "0")
  .option("--throttle-limit <n>", "analytics API: requests per window, as Laravel's throttle", "60")
  .option("--throttle-window <seconds>", "analytics API: the throttle window in seconds", "60")
  .option("--no-throttle", "analytics API: no throttle")
  .option("--page-shape <shape>", "website pages: laravel (meta) or bare (paginator)", "laravel")
  .option("--record-shape <shape>", "single websites: wrapped ({data}) or bare", "wrapped")
  .option("--per-page-cap <n>", "answer at most this many websites a page")
  .option(
    "--verify-lag <kind>",
    "verify lags a purchase by time (404 for 1 s, pending until 3 s) or by reads (404, then pending, then final)",
    "time",
  )
  .option(
    "--notify-url <url>",
    "POST each debit's signed notification here (webhooks.secret: sandbox-webhook-secret)",
  )
  .option(
    "--price <plan=price>",
    "a plan's price, listed and debited, e.g. 102=350.00 (repeat for more; POST /__admin/options {planPrices} changes it later)",
    (value: string, list: string[] = []) => [...list, value],
  )
  .action(async (options) => (await import("./sandbox.js")).sandboxCommand(options));

const config = program.command("config").description("validate the config or print its JSON Schema");
config
  .command("check")
  .description("validate the config file and report every problem with its line")
  .action(async () => (await import("./config.js")).configCheckCommand(globals()));
config
  .command("schema")
  .description("print the JSON Schema of config.yaml (for editor autocompletion)")
  .action(async () => (await import("./config.js")).configSchemaCommand());

program
  .command("console")
  .description("the web console's users")
  .command("hash-password")
  .description(
    "print a scrypt hash for console.users.NAME.password_hash; the password is read from standard input (first line) or asked for on a terminal, never from the command line",
  )
  .action(async () => (await import("./console.js")).hashPasswordCommand());

program
  .command("networks")
  .description("list the reseller's networks")
  .action(withContext(async (ctx) => (await import("./catalogue.js")).networksCommand(ctx)));

program
  .command("plans")
  .description("list the data plans of a network (by id, code or name)")
  .argument("<network>", "network id, code or name, e.g. MTN")
  .action(
    withContext(async (ctx, network: string) => (await import("./catalogue.js")).plansCommand(ctx, network)),
  );

program
  .command("verify")
  .description("verify one purchase by its reference")
  .argument("<reference>", "transaction reference")
  .option("--show-phone", "print phone numbers unmasked")
  .action(
    withContext(async (ctx, reference: string, flags: { showPhone?: boolean }) =>
      (await import("./verify.js")).verifyCommand(ctx, reference, flags),
    ),
  );

program
  .command("buy")
  .description("buy one data plan through the ledger (asks first on a terminal)")
  .requiredOption("--network <network>", "network id, code or name")
  .option("--plan <id>", "plan id (see topsync plans)")
  .option("--size <size>", "or a plan size, e.g. 1GB (the cheapest matching plan)")
  .option("--type <type>", "with --size: the plan type, e.g. 'CORPORATE GIFTING'")
  .requiredOption("--phone <phone>", "recipient, e.g. 08031234567 or +2348031234567")
  .option("--ported", "the number was ported to this network: skip the prefix check")
  .option("--max-price <amount>", "refuse when the live price is higher")
  .option(
    "--key <key>",
    "request key (default: the purchase and the current minute, so a repeat adds nothing)",
  )
  .option("--dry-run", "show what would be bought; buy nothing, write nothing")
  .option("-y, --yes", "do not ask")
  .action(withContext(async (ctx, flags) => (await import("./buy.js")).buyCommand(ctx, flags)));

const purchases = program.command("purchases").description("the purchase ledger");
purchases
  .command("run")
  .description("do what is due once and exit: intake, due job fires, queued purchases, verification")
  .option("--job <name>", "only this job")
  .option("--now", "with --job: fire it now (the current minute)")
  .option("--fire-time <time>", "with --job: fire it for this ISO time")
  .option("--dry-run", "show what would be bought and rejected; buy nothing, write nothing")
  .option("--show-phone", "print phone numbers unmasked")
  .option("--force", "with --job: run it although it is suspended or paused (needs --reason)")
  .option("--reason <text>", "with --force: why; recorded in the job's history")
  .action(
    withContext(async (ctx, flags) => (await import("./purchases-run.js")).purchasesRunCommand(ctx, flags)),
  );
purchases
  .command("list")
  .description("list purchases, newest first")
  .option(
    "--state <state>",
    "only this state (queued, submitted, succeeded, failed, in_doubt, unverified, …)",
  )
  .option("--since <when>", "created in the last duration (7d, 24h) or since a date")
  .option("--job <name>", "only this job")
  .option("--limit <n>", "at most this many", "100")
  .option("--csv", "print CSV")
  .option("--show-phone", "print phone numbers unmasked")
  .action(
    withContext(async (ctx, flags) =>
      (await import("./purchases-ledger.js")).purchasesListCommand(ctx, flags),
    ),
  );
purchases
  .command("show")
  .description("one purchase and its event history")
  .argument("<id-or-reference>", "purchase id or provider reference")
  .option("--show-phone", "print phone numbers unmasked")
  .action(
    withContext(async (ctx, target: string, flags: { showPhone?: boolean }) =>
      (await import("./purchases-ledger.js")).purchasesShowCommand(ctx, target, flags.showPhone === true),
    ),
  );
purchases
  .command("resolve")
  .description("settle an in_doubt or unverified purchase by hand")
  .argument("<id-or-reference>", "purchase id or provider reference")
  .requiredOption("--as <state>", "succeeded or failed")
  .option("--reference <reference>", "the provider's reference, when you found it")
  .requiredOption("--note <text>", "why: goes into the purchase's history")
  .action(
    withContext(async (ctx, target: string, flags) =>
      (await import("./purchases-ledger.js")).purchasesResolveCommand(ctx, target, flags),
    ),
  );
purchases
  .command("reconcile")
  .description("match a provider's statement CSV against the ledger (dry unless --apply)")
  .requiredOption("--statement <file>", "the provider's transaction export (CSV with a header line)")
  .option(
    "--columns <map>",
    "CSV column names, e.g. reference=Ref,phone=Phone,amount=Amount,date=Date,status=Status",
  )
  .option(
    "--date-format <format>",
    "how the export writes dates: ISO (2026-11-05T14:03:00) or DD/MM/YYYY (05/11/2026 14:03); a time without a zone is in the config's timezone (default: statements.date_format, else ISO)",
  )
  .option(
    "--decimal-comma",
    "amounts are written 1.405,00 (default: statements.decimal_comma, else 1,405.00)",
  )
  .option("--no-decimal-comma", "amounts are written 1,405.00, whatever the config says")
  .option("--apply", "settle in_doubt and unverified purchases whose unique match a verify read confirms")
  .option("--format <format>", "text, markdown, json or html (default text; json with --json)")
  .option("--out <file>", "write the report to this file (replaced whole) instead of stdout")
  .action(
    withContext(async (ctx, flags) =>
      (await import("./purchases-reconcile.js")).purchasesReconcileCommand(ctx, flags),
    ),
  );
purchases
  .command("requeue")
  .description("queue a failed or rejected purchase again")
  .argument("<id-or-reference>", "purchase id or provider reference")
  .action(
    withContext(async (ctx, target: string) =>
      (await import("./purchases-ledger.js")).purchasesRequeueCommand(ctx, target),
    ),
  );
purchases
  .command("cancel")
  .description("withdraw a purchase not yet sent: queued, or held for an approval")
  .argument("<id-or-reference>", "purchase id or provider reference")
  .option("--reason <text>", "why, kept on the purchase and its event")
  .action(
    withContext(async (ctx, target: string, flags: { reason?: string }) =>
      (await import("./purchases-ledger.js")).purchasesCancelCommand(ctx, target, flags),
    ),
  );
purchases
  .command("prune")
  .description("archive or drop settled purchases (succeeded, failed, rejected, cancelled) and their events")
  .requiredOption("--before <when>", "settled before: a duration ago (90d) or a date (2026-01-01)")
  .option("--archive <file>", "append each purchase and its events to this file first (JSON lines)")
  .option("--dry-run", "count what would be pruned; change nothing")
  .action(
    withContext(async (ctx, flags) =>
      (await import("./purchases-prune.js")).purchasesPruneCommand(ctx, flags),
    ),
  );

program
  .command("migrate")
  .description("apply database migrations (also done by every command that opens the database)")
  .action(withContext(async (ctx) => (await import("./migrate.js")).migrateCommand(ctx)));

program
  .command("doctor")
  .description(
    "say whether this installation can work: config, database, migrations, services, clock, settings",
  )
  .option("--quick", "only what a healthcheck can afford: no call to either service")
  .action(async (flags: { quick?: boolean }) =>
    (await import("./doctor.js")).doctorCommand(globals(), flags),
  );

program
  .command("run")
  .description(
    "the daemon: job schedules, intake, verification and the website loop; /healthz, /readyz, /metrics",
  )
  .action(withContext(async (ctx) => (await import("./run.js")).runCommand(ctx)));

const websites = program.command("websites").description("the analytics websites");
websites
  .command("list")
  .description("list every website the analytics service has")
  .action(withContext(async (ctx) => (await import("./websites.js")).websitesListCommand(ctx)));
registerWebsiteCommands(websites, withContext);
registerReportCommands(program, withContext);
registerPlanCommands(program, purchases, withContext);
registerNotifyCommands(program, withContext);
registerJobsCommands(program, withContext);

/** Runs the command line; resolves to the process's exit code. */
export async function main(argv: string[]): Promise<number> {
  mark("main");
  try {
    await program.parseAsync(argv);
    mark("done");
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here too, with exit code 0.
      return error.exitCode === 0 ? 0 : 64;
    }
    const { failureOutput } = await import("./fail.js");
    const debug = ["debug", "trace"].includes(program.opts<GlobalOptions>().logLevel ?? "");
    const failure = failureOutput(error, debug, process.stderr.isTTY === true);
    process.stderr.write(failure.output);
    return failure.exitCode;
  }
}
