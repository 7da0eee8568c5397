// `topsync demo` (`npm start`): the sandbox in-process, the committed config pointed at it, and a tour of
// what topsync sees: the catalogue and the websites.
import type { Config } from "../config/index.js";
import { startSandbox } from "../sandbox/index.js";
import { networksCommand, plansCommand } from "./catalogue.js";
import { type GlobalOptions, openContext } from "./context.js";
import { write } from "./output.js";
import { websitesListCommand } from "./websites.js";

export async function demoCommand(globals: GlobalOptions): Promise<void> {
  const sandbox = await startSandbox({ seed: 7 });
  sandbox.seedWebsites([
    { domain: "shop.example.org", privacy: 0 },
    { domain: "status.example.org", privacy: 1, exclude_bots: 0 },
  ]);
  const pointAtSandbox = (config: Config): Config => ({
    ...config,
    reseller: { ...config.reseller, base_url: sandbox.resellerUrl, api_key: sandbox.apiKey },
    analytics: { ...config.analytics, base_url: sandbox.analyticsUrl, api_key: sandbox.analyticsApiKey },
  });
  const ctx = await openContext(globals, pointAtSandbox);
  try {
    write(`topsync demo — sandbox reseller ${sandbox.resellerUrl}, analytics ${sandbox.analyticsUrl}\n\n`);
    write("== networks ==\n");
    await networksCommand(ctx);
    write("\n== plans MTN ==\n");
    await plansCommand(ctx, "MTN");
    write("\n== websites ==\n");
    await websitesListCommand(ctx);
  } finally {
    await ctx.close();
    await sandbox.close();
  }
}
