import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  write
} from "./chunk-NOWJV5E2.js";
import {
  renderJson,
  renderTable
} from "./chunk-PKFIHURA.js";

// dist/cli/websites.js
var PRIVACY = ["public", "private", "password"];
async function websitesListCommand(ctx) {
  const { websites } = await ctx.analytics().listWebsites();
  if (ctx.globals.json)
    return write(renderJson(websites));
  write(renderTable(websites, [
    { header: "ID", value: (w) => String(w.id), align: "right" },
    { header: "DOMAIN", value: (w) => w.domain },
    { header: "PRIVACY", value: (w) => PRIVACY[w.privacy] },
    { header: "EMAIL", value: (w) => w.email ? "on" : "off" },
    { header: "EXCLUDE BOTS", value: (w) => w.exclude_bots ? "on" : "off" },
    { header: "EXCLUDE IPS", value: (w) => w.exclude_ips.join(",") || "-" }
  ]));
  write(`${websites.length} websites
`);
}

export {
  websitesListCommand
};
