// `topsync buy`: one purchase through the ledger, with the same guards, classification and verification
// as a bulk run. Asks before buying on a terminal unless --yes.

import { DataError, ExitCode, TopsyncError, UsageError } from "../errors.js";
import { maskPhone, maskPhonesDeep } from "../log/mask.js";
import { formatMoney, MONEY_MAX } from "../money.js";
import { buyOne } from "../purchases/buy.js";
import type { NewPurchase } from "../purchases/ledger.js";
import { normalisePhone } from "../purchases/phone.js";
import type { Outcome } from "../purchases/projection.js";
import type { Resolved } from "../purchases/resolve.js";
import { heldRunNotes } from "../report/approvals-view.js";
import { itemJson } from "../report/forecast-json.js";
import { phoneView } from "../report/format.js";
import { parseSizeMb } from "../reseller/size.js";
import { inert } from "../text/inert.js";
import { onDemandFire } from "../time/fires.js";
import { amountFlag } from "./amount.js";
import { gateFor } from "./approval-gate.js";
import { confirm } from "./confirm.js";
import type { CommandContext } from "./context.js";
import { openLedger } from "./database.js";
import { renderJson, write } from "./output.js";
import { stoppable, throwIfStopped } from "./signals.js";

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
  const database = await openLedger(ctx);
  const actor = `cli:${process.pid}`;
  const gate = flags.dryRun ? undefined : await gateFor(ctx, database);
  const deps = {
    database,
    reseller: await ctx.reseller(),
    config: ctx.config,
    logger: ctx.logger,
    actor,
    gate,
  };
  // Once the purchase is confirmed, a signal stops it as it stops a run (a call in flight is answered and recorded)
  // rather than killing the process with the purchase sent and unrecorded.
  const { value: result, signal } = await stoppable(
    ctx.logger,
    (signal, arm) =>
      buyOne(deps, purchase, {
        dryRun: flags.dryRun === true,
        confirm: async (resolved) => {
          const yes = flags.yes === true || (await confirm(`Buy ${describe(resolved)}?`, "--yes"));
          if (yes) arm();
          return yes;
        },
        signal,
      }),
    { armedByBody: true },
  );
  if (result.kind === "dry_run") {
    const { item } = result;
    if (ctx.globals.json) return write(renderJson(itemJson(phoneView(false))(item)));
    if (!result.resolved) return write(`dry run: would not buy: ${item.code}: ${item.reason}\n`);
    const refusal =
      item.outcome === "buy" ? "" : `, but it would be ${outcomeWords(item.outcome)}: ${item.reason}`;
    write(`dry run: would buy ${describe(result.resolved)}${refusal}\n`);
    for (const note of heldRunNotes(ctx.config, result.runs, () => "this purchase")) write(`${note}\n`);
    return;
  }
  if (result.kind === "declined") return write("not bought\n");
  if (result.kind === "exists") {
    const { row, pruned } = result;
    if (pruned)
      return write(
        `already requested as purchase ${pruned.purchase_id} (${pruned.state}, pruned ${pruned.pruned_at.toISOString()}); nothing bought again\n`,
      );
    return write(`already requested as purchase ${row?.id} (${row?.state}); nothing bought again\n`);
  }
  const { row, summary } = result;
  // The provider's message and the request key name the number too.
  const shown = maskPhonesDeep({ ...row, phone: maskPhone(row?.phone ?? "") }) as typeof row;
  if (ctx.globals.json) write(renderJson(shown));
  else {
    write(
      `${inert(`purchase ${shown?.id}: ${shown?.state}${shown?.reference ? `, reference ${shown.reference}` : ""}${shown?.provider_message ? ` — ${shown.provider_message}` : ""}${shown?.reason ? ` — ${shown.reason}` : ""}`)}\n`,
    );
  }
  for (const held of summary.held)
    write(
      `held for approval as saved plan ${held.plan} (${held.total}, needs ${held.approvalsRequired} approval${held.approvalsRequired === 1 ? "" : "s"}); ` +
        `approve with \`topsync approve ${held.plan} --as NAME --key KEYFILE\`, then \`topsync apply ${held.plan}\`\n`,
    );
  if (summary.stoppedBy) throw new TopsyncError("RUN_STOPPED", summary.stoppedBy, ExitCode.failure);
  throwIfStopped(signal, "is not bought (the purchase is as shown above)");
  if (row?.state === "failed" || row?.state === "rejected" || row?.state === "in_doubt")
    process.exitCode = ExitCode.failure;
}

function describe(r: Resolved): string {
  return `${r.network.name} ${r.plan.name} (plan ${r.plan.id}) for ${formatMoney(r.amount)} to ${maskPhone(r.phone)}`;
}

function outcomeWords(outcome: Outcome): string {
  return outcome === "reject" ? "rejected" : outcome === "exists" ? "not bought again" : outcome;
}

function requestFrom(flags: BuyFlags, phone: string): NewPurchase {
  if (!flags.plan && !flags.size)
    throw new UsageError("give --plan ID or --size SIZE (with an optional --type)");
  const sizeMb = flags.size ? parseSizeMb(flags.size) : null;
  if (flags.size && sizeMb === null)
    throw new UsageError(`--size must be a data size like 500MB or 1GB, got "${flags.size}"`);
  const maxPrice = flags.maxPrice === undefined ? null : parseMaxPrice(flags.maxPrice);
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
    max_price: maxPrice,
    requested_by: `cli:${process.env.USER ?? "operator"}`,
  };
}

/** `--max-price` as the config writes `max_price`: its text as the ledger stores it. */
function parseMaxPrice(text: string): string {
  const amount = amountFlag(text);
  if (amount === undefined)
    throw new UsageError(
      `--max-price must be an amount like 350.00 (at least 0, at most two decimal places, at most ${formatMoney(MONEY_MAX)}, no thousands separators), got "${text}"`,
    );
  return amount;
}
