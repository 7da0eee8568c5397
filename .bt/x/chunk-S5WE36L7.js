import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  write
} from "./chunk-NOWJV5E2.js";
import {
  renderJson,
  renderTable
} from "./chunk-PKFIHURA.js";
import {
  resolveNetwork
} from "./chunk-Y6YROLBT.js";
import {
  formatSizeMb
} from "./chunk-VAUR3CNU.js";
import {
  formatMoney
} from "./chunk-57HFVDAX.js";

// dist/cli/catalogue.js
async function networksCommand(ctx) {
  const networks = await ctx.reseller().listNetworks();
  if (ctx.globals.json)
    return write(renderJson(networks));
  write(renderTable(networks, [
    { header: "ID", value: (n) => n.id },
    { header: "CODE", value: (n) => n.code },
    { header: "NAME", value: (n) => n.name },
    { header: "OTHER NAME", value: (n) => n.other_name }
  ]));
}
async function plansCommand(ctx, networkQuery) {
  const reseller = ctx.reseller();
  const network = resolveNetwork(await reseller.listNetworks(), networkQuery);
  const { plans, unusable } = await reseller.readPlans(network.id);
  if (ctx.globals.json)
    return write(renderJson({ network, plans, unusable }));
  write(`${network.name} (network ${network.id}): ${plans.length} plans
`);
  write(renderTable(plans, [
    { header: "ID", value: (p) => p.id, align: "right" },
    { header: "TYPE", value: (p) => p.type },
    {
      header: "SIZE",
      value: (p) => p.size_mb === null ? `${p.size} (?)` : formatSizeMb(p.size_mb),
      align: "right"
    },
    { header: "PRICE", value: (p) => formatMoney(p.price), align: "right" },
    { header: "NAME", value: (p) => p.name }
  ]));
  if (unusable.length > 0) {
    write(`
${unusable.length} listed plans cannot be bought (never picked by a purchase):
`);
    write(renderTable(unusable, [
      { header: "ID", value: (u) => u.planId, align: "right" },
      { header: "REASON", value: (u) => u.reason }
    ]));
  }
}

export {
  networksCommand,
  plansCommand
};
