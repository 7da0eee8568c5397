// `topsync buy`: one purchase through the ledger, with the same guards, classification and verification
// as a bulk run. Asks before buying on a terminal unless --yes.
import { eq } from "drizzle-orm";
import { purchases } from "../db/schema.js";
import { DataError, ExitCode, TopsyncError, UsageError } from "../errors.js";
import { maskPhone, maskPhonesDeep } from "../log/mask.js";
import { formatMoney, parseMoney } from "../money.js";
import { loadCatalogue } from "../purchases/catalogue-cache.js";
import { executePurchases } from "../purchases/executor.js";
import { applyGuards, budgetDay } from "../purchases/guards.js";
import { insertPurchases, type NewPurchase } from "../purchases/ledger.js";
import { normalisePhone } from "../purchases/phone.js";
import { resolvePurchase } from "../purchases/resolve.js";
import { readGuardState } from "../purchases/submit.js";
import { resolveNetwork } from "../reseller/catalogue.js";
import { parseSizeMb } from "../reseller/size.js";
import { onDemandFire } from "../schedule/fires.js";
import { inert } from "../text/inert.js";
import { confirm } from "./confirm.js";
import type { CommandContext } from "./context.js";
import { openLedger } from "./database.js";
import { renderJson, write } from "./output.js";

export interface BuyFlags {
  network: string;
  plan?: string;
  size?: string;
  type?: string;
  phone: string;
  ported?: boolean;
  maxPrice?: string;
  key?: string;
  dryRun?: boolean;
  yes?: boolean;
}

export async function buyCommand(ctx: CommandContext, flags: BuyFlags): Promise<void> {
  const phone = normalisePhone(flags.phone);
  if (!phone.ok) throw new DataError(`--phone "${flags.phone}": ${phone.reason}`, "INVALID_PHONE");
  const purchase = requestFrom(flags, phone.phone);
  const reseller = ctx.reseller();
  const catalogue = await loadCatalogue(reseller, ctx.logger);
  resolveNetwork(catalogue.networks, flags.network); // an unknown network is a usage error, before anything else
  const resolution = resolvePurchase(
    {
      network: purchase.network,
      plan_id: purchase.plan_id,
      plan_selector: purchase.plan_selector as never,
      phone: purchase.phone,
      ported: purchase.ported ?? false,
      max_price: purchase.max_price ? parseMoney(purchase.max_price) : null,
    },
    catalogue,
  );
  if (!resolution.ok) throw new DataError(`cannot buy: ${resolution.reason}`, resolution.code.toUpperCase());
  const description = `${resolution.network.name} ${resolution.plan.name} (plan ${resolution.plan.id}) for ${formatMoney(resolution.amount)} to ${maskPhone(resolution.phone)}`;
  const database = await openLedger(ctx);

  if (flags.dryRun) {
    const state = await readGuardState(database.db, budgetDay(new Date(), ctx.config.timezone));
    const [decision] = applyGuards(
      [resolution.amount],
      {
        dailyLimit: ctx.config.budget.daily_limit,
        perRunLimit: ctx.config.budget.per_run_limit,
        minWalletBalance: ctx.config.budget.min_wallet_balance,
      },
      { ...state, runCommitted: parseMoney("0") },
    );
    write(
      `dry run: would buy ${description}${decision?.ok ? "" : `, but it would be rejected: ${decision?.reason}`}\n`,
    );
    return;
  }

  if (!flags.yes && !(await confirm(`Buy ${description}?`, "--yes"))) {
    write("not bought\n");
    return;
  }
  const inserted = await insertPurchases(database.db, [purchase], `cli:${process.pid}`);
  if (inserted === 0) {
    const [existing] = await database.db
      .select()
      .from(purchases)
      .where(eq(purchases.request_key, purchase.request_key));
    write(`already requested as purchase ${existing?.id} (${existing?.state}); nothing bought again\n`);
    return;
  }
  const summary = await executePurchases(
    { database, reseller, config: ctx.config, logger: ctx.logger, actor: `cli:${process.pid}` },
    { requestKey: purchase.request_key, catalogue, concurrency: 1 },
  );
  const [row] = await database.db
    .select()
    .from(purchases)
    .where(eq(purchases.request_key, purchase.request_key));
  // The provider's message and the request key name the number too.
  const shown = maskPhonesDeep({ ...row, phone: maskPhone(row?.phone ?? "") }) as typeof row;
  if (ctx.globals.json) write(renderJson(shown));
  else {
    write(
      `${inert(`purchase ${shown?.id}: ${shown?.state}${shown?.reference ? `, reference ${shown.reference}` : ""}${shown?.provider_message ? ` — ${shown.provider_message}` : ""}${shown?.reason ? ` — ${shown.reason}` : ""}`)}\n`,
    );
  }
  if (summary.stoppedBy) throw new TopsyncError("RUN_STOPPED", summary.stoppedBy, ExitCode.failure);
  if (row?.state === "failed" || row?.state === "rejected" || row?.state === "in_doubt")
    process.exitCode = ExitCode.failure;
}

function requestFrom(flags: BuyFlags, phone: string): NewPurchase {
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
    request_key:
      flags.key ??
      `buy:${flags.network.toLowerCase()}:${planPart}:${phone}:${onDemandFire(new Date()).toISOString()}`,
    source: "buy",
    network: flags.network,
    plan_id: flags.plan ?? null,
    plan_selector: sizeMb === null ? null : { size_mb: sizeMb, type: flags.type },
    phone,
    ported: flags.ported === true,
    max_price: flags.maxPrice ? parseMoney(flags.maxPrice).toFixed(2) : null,
    requested_by: `cli:${process.env.USER ?? "operator"}`,
  };
}
