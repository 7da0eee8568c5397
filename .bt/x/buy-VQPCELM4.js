import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  executeAndRecord
} from "./chunk-RWY4LPCE.js";
import "./chunk-2ULZMUG3.js";
import "./chunk-INE77FG5.js";
import "./chunk-NFUL76TY.js";
import "./chunk-Q5CGDVWJ.js";
import "./chunk-JUEWK5GU.js";
import {
  itemJson
} from "./chunk-A6M26WNP.js";
import "./chunk-AGXQD3VJ.js";
import {
  openLedger
} from "./chunk-JK5CIMQN.js";
import "./chunk-LFLOYXGR.js";
import {
  write
} from "./chunk-NOWJV5E2.js";
import {
  phoneView
} from "./chunk-JZURMT7Q.js";
import {
  maskPhone,
  maskPhonesDeep
} from "./chunk-CTB3ORUE.js";
import "./chunk-BZFDKSYR.js";
import {
  renderJson
} from "./chunk-PKFIHURA.js";
import {
  inert
} from "./chunk-IIT3DDOC.js";
import "./chunk-R6NDLW6F.js";
import {
  loadCatalogue,
  normalisePhone,
  onDemandFire,
  projectSources,
  resolveRow
} from "./chunk-IVUYQY7E.js";
import "./chunk-VGVPC3PQ.js";
import "./chunk-76UW4DC7.js";
import {
  resolveNetwork
} from "./chunk-Y6YROLBT.js";
import {
  parseSizeMb
} from "./chunk-VAUR3CNU.js";
import "./chunk-5653Z76Z.js";
import "./chunk-WW7OP26R.js";
import {
  insertPurchases
} from "./chunk-EBZNZK5S.js";
import {
  purchases
} from "./chunk-BH4POYA2.js";
import "./chunk-TEJ6QTWI.js";
import "./chunk-4DGXMM26.js";
import {
  DataError,
  ExitCode,
  TopsyncError,
  UsageError
} from "./chunk-3SYTADOT.js";
import {
  formatMoney,
  parseMoney
} from "./chunk-57HFVDAX.js";
import "./chunk-TULZGMTI.js";
import {
  eq
} from "./chunk-FBKOPLBK.js";
import "./chunk-V4RWK56N.js";

// dist/purchases/buy.js
async function buyOne(deps, purchase, options) {
  const catalogue = await loadCatalogue(deps.reseller, deps.logger);
  resolveNetwork(catalogue.networks, purchase.network);
  const resolution = resolveRow(purchase, catalogue);
  const db = deps.database.db;
  if (options.dryRun) {
    const now = /* @__PURE__ */ new Date();
    const projection = await projectSources(db, deps.config, catalogue, {
      now,
      to: now,
      fires: [],
      queued: false,
      intake: false,
      extra: [{ kind: "buy", time: now, job: null, fireTime: null, rows: [purchase] }]
    });
    const item = projection.items[0];
    return { kind: "dry_run", resolved: resolution.outcome === "buy" ? resolution.resolved : null, item };
  }
  if (resolution.outcome !== "buy")
    throw new DataError(`cannot buy: ${resolution.reason}`, resolution.code.toUpperCase());
  const { resolved } = resolution;
  if (!await options.confirm(resolved))
    return { kind: "declined", resolved };
  const find = async () => (await db.select().from(purchases).where(eq(purchases.request_key, purchase.request_key)))[0];
  const inserted = await insertPurchases(db, [purchase], deps.actor ?? `cli:${process.pid}`);
  if (inserted === 0)
    return { kind: "exists", row: await find() };
  const summary = await executeAndRecord(deps, {
    requestKey: purchase.request_key,
    catalogue,
    concurrency: 1
  });
  return { kind: "bought", row: await find(), summary };
}

// dist/cli/confirm.js
import { createInterface } from "node:readline/promises";
async function confirm(question, flag) {
  if (!process.stdin.isTTY) {
    throw new UsageError(`not asking on a non-interactive terminal; pass ${flag} to go ahead`, "NEEDS_CONFIRMATION");
  }
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question(`${question} [y/N] `);
    return /^(y|yes)$/i.test(answer.trim());
  } finally {
    prompt.close();
  }
}

// dist/cli/buy.js
async function buyCommand(ctx, flags) {
  const phone = normalisePhone(flags.phone);
  if (!phone.ok)
    throw new DataError(`--phone "${flags.phone}": ${phone.reason}`, "INVALID_PHONE");
  const purchase = requestFrom(flags, phone.phone);
  const database = await openLedger(ctx);
  const actor = `cli:${process.pid}`;
  const deps = { database, reseller: ctx.reseller(), config: ctx.config, logger: ctx.logger, actor };
  const result = await buyOne(deps, purchase, {
    dryRun: flags.dryRun === true,
    confirm: (resolved) => flags.yes ? Promise.resolve(true) : confirm(`Buy ${describe(resolved)}?`, "--yes")
  });
  if (result.kind === "dry_run") {
    const { item } = result;
    if (ctx.globals.json)
      return write(renderJson(itemJson(phoneView(false))(item)));
    if (!result.resolved)
      return write(`dry run: would not buy: ${item.code}: ${item.reason}
`);
    const refusal = item.outcome === "buy" ? "" : `, but it would be ${outcomeWords(item.outcome)}: ${item.reason}`;
    return write(`dry run: would buy ${describe(result.resolved)}${refusal}
`);
  }
  if (result.kind === "declined")
    return write("not bought\n");
  if (result.kind === "exists") {
    const { row: row2 } = result;
    return write(`already requested as purchase ${row2?.id} (${row2?.state}); nothing bought again
`);
  }
  const { row, summary } = result;
  const shown = maskPhonesDeep({ ...row, phone: maskPhone(row?.phone ?? "") });
  if (ctx.globals.json)
    write(renderJson(shown));
  else {
    write(`${inert(`purchase ${shown?.id}: ${shown?.state}${shown?.reference ? `, reference ${shown.reference}` : ""}${shown?.provider_message ? ` \u2014 ${shown.provider_message}` : ""}${shown?.reason ? ` \u2014 ${shown.reason}` : ""}`)}
`);
  }
  if (summary.stoppedBy)
    throw new TopsyncError("RUN_STOPPED", summary.stoppedBy, ExitCode.failure);
  if (row?.state === "failed" || row?.state === "rejected" || row?.state === "in_doubt")
    process.exitCode = ExitCode.failure;
}
function describe(r) {
  return `${r.network.name} ${r.plan.name} (plan ${r.plan.id}) for ${formatMoney(r.amount)} to ${maskPhone(r.phone)}`;
}
function outcomeWords(outcome) {
  return outcome === "reject" ? "rejected" : outcome === "exists" ? "not bought again" : outcome;
}
function requestFrom(flags, phone) {
  if (!flags.plan && !flags.size)
    throw new UsageError("give --plan ID or --size SIZE (with an optional --type)");
  const sizeMb = flags.size ? parseSizeMb(flags.size) : null;
  if (flags.size && sizeMb === null)
    throw new UsageError(`--size must be a data size like 500MB or 1GB, got "${flags.size}"`);
  if (flags.maxPrice) {
    try {
      parseMoney(flags.maxPrice);
    } catch {
      throw new UsageError(`--max-price must be an amount like 350.00, got "${flags.maxPrice}"`);
    }
  }
  const planPart = flags.plan ?? `${flags.size}${flags.type ? `/${flags.type}` : ""}`;
  return {
    request_key: flags.key ?? `buy:${flags.network.toLowerCase()}:${planPart}:${phone}:${onDemandFire(/* @__PURE__ */ new Date()).toISOString()}`,
    source: "buy",
    network: flags.network,
    plan_id: flags.plan ?? null,
    plan_selector: sizeMb === null ? null : { size_mb: sizeMb, type: flags.type },
    phone,
    ported: flags.ported === true,
    max_price: flags.maxPrice ? parseMoney(flags.maxPrice).toFixed(2) : null,
    requested_by: `cli:${process.env.USER ?? "operator"}`
  };
}
export {
  buyCommand
};
