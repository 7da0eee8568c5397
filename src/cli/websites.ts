// `topsync websites list`: the analytics service's websites as it reports them (every page).
import type { ListingProgress } from "../analytics/client.js";
import type { CommandContext } from "./context.js";
import { renderJson, renderTable, write } from "./output.js";
import { countLine, paceOf, pagesRead, progressReporter } from "./progress.js";

const PRIVACY = ["public", "private", "password"] as const;

export async function websitesListCommand(ctx: CommandContext): Promise<void> {
  const analytics = await ctx.analytics();
  const progress = progressReporter<ListingProgress>(
    (p, elapsed) => countLine(pagesRead(p, paceOf("analytics", analytics.http.pace())), elapsed),
    ctx.logger,
  );
  const { websites } = await analytics.listWebsites({ onPage: progress.update }).finally(progress.done);
  if (ctx.globals.json) return write(renderJson(websites));
  write(
    renderTable(websites, [
      { header: "ID", value: (w) => String(w.id), align: "right" },
      { header: "DOMAIN", value: (w) => w.domain },
      { header: "PRIVACY", value: (w) => PRIVACY[w.privacy] },
      { header: "EMAIL", value: (w) => onOff(w.email) },
      { header: "EXCLUDE BOTS", value: (w) => onOff(w.exclude_bots) },
      { header: "EXCLUDE IPS", value: (w) => w.exclude_ips.join(",") || "-" },
    ]),
  );
  write(`${websites.length} websites\n`);
}

/** A yes/no setting as the list shows it: "-" when the record does not say. */
function onOff(value: 0 | 1 | undefined): string {
  return value === undefined ? "-" : value ? "on" : "off";
}
