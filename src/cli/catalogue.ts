// `topsync networks` and `topsync plans <network>`: the reseller's catalogue as a table or JSON.
import { formatMoney } from "../money.js";
import { resolveNetwork } from "../reseller/catalogue.js";
import { formatSizeMb } from "../reseller/size.js";
import type { CommandContext } from "./context.js";
import { renderJson, renderTable, write } from "./output.js";

export async function networksCommand(ctx: CommandContext): Promise<void> {
  const networks = await (await ctx.reseller()).listNetworks();
  if (ctx.globals.json) return write(renderJson(networks));
  write(
    renderTable(networks, [
      { header: "ID", value: (n) => n.id },
      { header: "CODE", value: (n) => n.code },
      { header: "NAME", value: (n) => n.name },
      { header: "OTHER NAME", value: (n) => n.other_name },
    ]),
  );
}

export async function plansCommand(ctx: CommandContext, networkQuery: string): Promise<void> {
  const reseller = await ctx.reseller();
  const network = resolveNetwork(await reseller.listNetworks(), networkQuery);
  const { plans, unusable } = await reseller.readPlans(network.id);
  if (ctx.globals.json) return write(renderJson({ network, plans, unusable }));
  write(`${network.name} (network ${network.id}): ${plans.length} plans\n`);
  write(
    renderTable(plans, [
      { header: "ID", value: (p) => p.id, align: "right" },
      { header: "TYPE", value: (p) => p.type },
      {
        header: "SIZE",
        value: (p) => (p.size_mb === null ? `${p.size} (?)` : formatSizeMb(p.size_mb)),
        align: "right",
      },
      { header: "PRICE", value: (p) => formatMoney(p.price), align: "right" },
      { header: "NAME", value: (p) => p.name },
    ]),
  );
  if (unusable.length > 0) {
    write(`\n${unusable.length} listed plans cannot be bought (never picked by a purchase):\n`);
    write(
      renderTable(unusable, [
        { header: "ID", value: (u) => u.planId, align: "right" },
        { header: "REASON", value: (u) => u.reason },
      ]),
    );
  }
}
