// `topsync demo` (`npm start`): the sandbox in-process, the committed config pointed at it and at a fresh
// embedded database, and one full cycle: the catalogue, a bulk job bought and verified, a purchase whose
// answer is lost settled by the provider's notification, what the operator was told, a saved plan approved and
// applied exactly, the websites, the ledger.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Config, PurchaseJob } from "../config/index.js";
import type { Database } from "../db/client.js";
import { formatMoney } from "../money.js";
import { packageRoot } from "../package-root.js";
import { loadCatalogue } from "../purchases/catalogue-cache.js";
import { executeAndRecord, prepareRun } from "../purchases/run-once.js";
import { startSandbox } from "../sandbox/index.js";
import { onDemandFire } from "../time/fires.js";
import { networksCommand, plansCommand } from "./catalogue.js";
import { type CommandContext, type GlobalOptions, openContext } from "./context.js";
import { openLedger } from "./database.js";
import { demoLostAnswer } from "./demo-lost-answer.js";
import { demoNotifications, demoNotify } from "./demo-notify.js";
import { demoSavedPlans } from "./demo-plans.js";
import { write } from "./output.js";
import { purchasesListCommand } from "./purchases-ledger.js";
import { demoReports } from "./report-commands.js";
import { websitesListCommand } from "./websites.js";
import { websitesApplyCommand, websitesPlanCommand } from "./websites-commands.js";

const DEMO_DIR = "./.topsync/demo";
/** The config `-c` names when it is not given. */
const DEFAULT_CONFIG = "./config.yaml";

export async function demoCommand(given: GlobalOptions): Promise<void> {
  const globals = withDemoConfig(given);
  const sandbox = await startSandbox({ seed: 7, failRate: 0.05, reverseRate: 0.03, verifyLag: "reads" });
  sandbox.seedWebsites([
    { domain: "shop.example.org", privacy: 0 },
    { domain: "status.example.org", privacy: 1, exclude_bots: 0 },
  ]);
  rmSync(DEMO_DIR, { recursive: true, force: true });
  const pointAtSandbox = (config: Config): Config => ({
    ...config,
    reseller: {
      ...config.reseller,
      base_url: sandbox.resellerUrl,
      api_key: sandbox.apiKey,
      concurrency: 16,
      rate_limit: 500,
    },
    analytics: { ...config.analytics, base_url: sandbox.analyticsUrl, api_key: sandbox.analyticsApiKey },
    database: { url: "", pglite_dir: join(DEMO_DIR, "pglite") },
    // The tour of approvals brings its own rules and demo key; the rest of the demo buys without a gate.
    approvals: { ...config.approvals, rules: [], approvers: {} },
    verification: { ...config.verification, initial_delay: 50, max_interval: 200 },
    // The receiver of the lost answer's notification, with the sandbox's way of signing (a fresh secret).
    webhooks: {
      ...config.webhooks,
      enabled: true,
      auth: "hmac",
      secret: randomBytes(24).toString("hex"),
      signature_header: "X-Signature",
      algorithm: "sha256",
      encoding: "hex",
      timestamp_header: undefined,
      allow_from: [],
    },
    notifications: demoNotifications(sandbox),
  });
  const ctx = await openContext(globals, pointAtSandbox).catch(async (error: unknown) => {
    await sandbox.close();
    throw error;
  });
  try {
    if (globals !== given)
      write(
        `no ${DEFAULT_CONFIG} here: the demo runs on the example config topsync comes with, ${globals.config}\n`,
      );
    write(`topsync demo — sandbox reseller ${sandbox.resellerUrl}, analytics ${sandbox.analyticsUrl}\n`);
    write(
      `embedded database in ${DEMO_DIR} (your own ledger in ${globals.config}'s database is not touched)\n\n`,
    );
    write("== networks ==\n");
    await networksCommand(ctx);
    write("\n== plans MTN ==\n");
    await plansCommand(ctx, "MTN");
    const database = await openLedger(ctx);
    await bulkPurchase(ctx, database);
    await demoLostAnswer(ctx, sandbox, database);
    await demoNotify(ctx, sandbox, database);
    await demoSavedPlans(ctx, sandbox, DEMO_DIR);
    write("\n== websites: the declared list of config.yaml applied to the analytics service ==\n");
    await websitesApplyCommand(ctx, { autoApprove: true });
    write("\n== websites: a second plan right after (converged: nothing to do) ==\n");
    await websitesPlanCommand(ctx, {});
    write("\n== websites (as the analytics service has them now) ==\n");
    await websitesListCommand(ctx);
    await demoReports(ctx, database);
  } finally {
    await ctx.close();
    await sandbox.close();
  }
}

/**
 * The config the demo starts from: the one `-c` names, or, run where there is no ./config.yaml and none was named
 * (a global install tried in an empty folder), the example config the package comes with.
 */
function withDemoConfig(globals: GlobalOptions): GlobalOptions {
  if (globals.config !== DEFAULT_CONFIG || existsSync(DEFAULT_CONFIG)) return globals;
  return { ...globals, config: fileURLToPath(new URL("config.yaml", packageRoot(import.meta.url))) };
}

/** A bulk job of 60 recipients from a CSV, plus the config's own jobs fired now, bought and verified. */
async function bulkPurchase(ctx: CommandContext, database: Database): Promise<void> {
  mkdirSync(DEMO_DIR, { recursive: true });
  const file = join(DEMO_DIR, "bulk.csv");
  const phones = Array.from({ length: 60 }, (_, i) => `0803${String(5_550_000 + i)}`);
  phones[7] = "08055550007"; // a GLO number in an MTN job: rejected before any call
  writeFileSync(file, `phone,ported\n${phones.map((p, i) => `${p},${i === 9 ? "true" : ""}`).join("\n")}\n`);
  const bulk: PurchaseJob = {
    name: "demo-bulk",
    plan: {
      kind: "selector",
      network: "MTN",
      size: "1GB",
      size_mb: 1024,
      type: "CORPORATE GIFTING",
      name_contains: undefined,
    },
    recipients: [],
    recipients_file: file,
    catch_up: 6 * 3_600_000,
    enabled: true,
  };
  const now = new Date();
  const fires = [...ctx.config.purchases, bulk].map((job) => ({ job, fireTime: onDemandFire(now) }));
  write(`\n== purchases: firing ${fires.map((f) => f.job.name).join(", ")} now ==\n`);
  const prepared = await prepareRun(database, ctx.config, {
    now,
    actor: "demo",
    configDir: ".",
    fires,
    intake: true,
  });
  for (const fire of prepared.fires) write(`${fire.job}: ${fire.recipients} recipients queued\n`);
  const catalogue = await loadCatalogue(await ctx.reseller(), ctx.logger);
  const summary = await executeAndRecord(
    { database, reseller: await ctx.reseller(), config: ctx.config, logger: ctx.logger, actor: "demo" },
    { catalogue },
  );
  write(
    `\nbought and verified: ${summary.succeeded} succeeded, ${summary.failed} failed (refunded), ${summary.rejected} rejected, ` +
      `${summary.inDoubt} in doubt, ${summary.unverified} unverified — sent for ${formatMoney(summary.committed)}\n\n`,
  );
  await purchasesListCommand(ctx, { limit: "12" }, database);
  write("(topsync purchases list / show ID with -c and this database show the rest)\n");
}
