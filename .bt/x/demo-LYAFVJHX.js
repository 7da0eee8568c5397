import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  executeAndRecord,
  prepareRun
} from "./chunk-RWY4LPCE.js";
import "./chunk-2ULZMUG3.js";
import "./chunk-INE77FG5.js";
import {
  openContext
} from "./chunk-LBSPC3V7.js";
import "./chunk-67GFVRO3.js";
import "./chunk-NFUL76TY.js";
import "./chunk-Q5CGDVWJ.js";
import "./chunk-JUEWK5GU.js";
import {
  networksCommand,
  plansCommand
} from "./chunk-S5WE36L7.js";
import {
  websitesListCommand
} from "./chunk-AL3WAVUU.js";
import {
  startSandbox
} from "./chunk-SZPVPX5K.js";
import {
  purchasesListCommand
} from "./chunk-H4XKTI73.js";
import "./chunk-R4UDDDHW.js";
import {
  openLedger
} from "./chunk-JK5CIMQN.js";
import "./chunk-LFLOYXGR.js";
import {
  write
} from "./chunk-NOWJV5E2.js";
import "./chunk-CTB3ORUE.js";
import {
  websitesApplyCommand,
  websitesPlanCommand
} from "./chunk-7YWQELDK.js";
import {
  demoReports
} from "./chunk-5OWKPJYZ.js";
import "./chunk-PKFIHURA.js";
import "./chunk-IIT3DDOC.js";
import {
  loadCatalogue,
  onDemandFire
} from "./chunk-IVUYQY7E.js";
import "./chunk-VGVPC3PQ.js";
import "./chunk-GJL2AOOX.js";
import "./chunk-76UW4DC7.js";
import "./chunk-Y6YROLBT.js";
import "./chunk-VAUR3CNU.js";
import "./chunk-5653Z76Z.js";
import "./chunk-L3UC3SYL.js";
import "./chunk-WW7OP26R.js";
import "./chunk-EBZNZK5S.js";
import "./chunk-BH4POYA2.js";
import "./chunk-TEJ6QTWI.js";
import "./chunk-4DGXMM26.js";
import "./chunk-3SYTADOT.js";
import {
  formatMoney
} from "./chunk-57HFVDAX.js";
import "./chunk-TULZGMTI.js";
import "./chunk-FBKOPLBK.js";
import "./chunk-V4RWK56N.js";

// dist/cli/demo.js
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
var DEMO_DIR = "./.topsync/demo";
async function demoCommand(globals) {
  const sandbox = await startSandbox({ seed: 7, failRate: 0.05, reverseRate: 0.03 });
  sandbox.seedWebsites([
    { domain: "shop.example.org", privacy: 0 },
    { domain: "status.example.org", privacy: 1, exclude_bots: 0 }
  ]);
  rmSync(DEMO_DIR, { recursive: true, force: true });
  const pointAtSandbox = (config) => ({
    ...config,
    reseller: {
      ...config.reseller,
      base_url: sandbox.resellerUrl,
      api_key: sandbox.apiKey,
      concurrency: 16,
      rate_limit: 500
    },
    analytics: { ...config.analytics, base_url: sandbox.analyticsUrl, api_key: sandbox.analyticsApiKey },
    database: { url: "", pglite_dir: join(DEMO_DIR, "pglite") },
    verification: { ...config.verification, initial_delay: 50, max_interval: 200 }
  });
  const ctx = await openContext(globals, pointAtSandbox);
  try {
    write(`topsync demo \u2014 sandbox reseller ${sandbox.resellerUrl}, analytics ${sandbox.analyticsUrl}
`);
    write(`embedded database in ${DEMO_DIR} (your own ledger in ${globals.config}'s database is not touched)

`);
    write("== networks ==\n");
    await networksCommand(ctx);
    write("\n== plans MTN ==\n");
    await plansCommand(ctx, "MTN");
    await bulkPurchase(ctx);
    write("\n== websites: the declared list of config.yaml applied to the analytics service ==\n");
    await websitesApplyCommand(ctx, { autoApprove: true });
    write("\n== websites: a second plan right after (converged: nothing to do) ==\n");
    await websitesPlanCommand(ctx, {});
    write("\n== websites (as the analytics service has them now) ==\n");
    await websitesListCommand(ctx);
    await demoReports(ctx);
  } finally {
    await ctx.close();
    await sandbox.close();
  }
}
async function bulkPurchase(ctx) {
  mkdirSync(DEMO_DIR, { recursive: true });
  const file = join(DEMO_DIR, "bulk.csv");
  const phones = Array.from({ length: 60 }, (_, i) => `0803${String(555e4 + i)}`);
  phones[7] = "08055550007";
  writeFileSync(file, `phone,ported
${phones.map((p, i) => `${p},${i === 9 ? "true" : ""}`).join("\n")}
`);
  const bulk = {
    name: "demo-bulk",
    plan: {
      kind: "selector",
      network: "MTN",
      size: "1GB",
      size_mb: 1024,
      type: "CORPORATE GIFTING",
      name_contains: void 0
    },
    recipients: [],
    recipients_file: file,
    catch_up: 6 * 36e5,
    enabled: true
  };
  const now = /* @__PURE__ */ new Date();
  const fires = [...ctx.config.purchases, bulk].map((job) => ({ job, fireTime: onDemandFire(now) }));
  const database = await openLedger(ctx);
  write(`
== purchases: firing ${fires.map((f) => f.job.name).join(", ")} now ==
`);
  const prepared = await prepareRun(database, ctx.config, {
    now,
    actor: "demo",
    configDir: ".",
    fires,
    intake: true
  });
  for (const fire of prepared.fires)
    write(`${fire.job}: ${fire.recipients} recipients queued
`);
  const catalogue = await loadCatalogue(ctx.reseller(), ctx.logger);
  const summary = await executeAndRecord({ database, reseller: ctx.reseller(), config: ctx.config, logger: ctx.logger, actor: "demo" }, { catalogue });
  write(`
bought and verified: ${summary.succeeded} succeeded, ${summary.failed} failed (refunded), ${summary.rejected} rejected, ${summary.inDoubt} in doubt, ${summary.unverified} unverified \u2014 sent for ${formatMoney(summary.committed)}

`);
  await purchasesListCommand(ctx, { limit: "12" });
  write("(topsync purchases list / show ID with -c and this database show the rest)\n");
}
export {
  demoCommand
};
