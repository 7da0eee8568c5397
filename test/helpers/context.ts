// Runs a command body as the CLI would: a context built from a config (no file read), closed afterwards.
import { type CommandContext, contextFrom } from "../../src/cli/context.js";
import type { Config } from "../../src/config/index.js";
import { createLogger } from "../../src/log/logger.js";

export async function withContext<T>(
  config: Config,
  body: (ctx: CommandContext) => Promise<T>,
  json = false,
): Promise<T> {
  const ctx = contextFrom(
    { config: "config.yaml", json },
    config,
    "config.yaml",
    createLogger({ level: "silent" }),
  );
  try {
    return await body(ctx);
  } finally {
    await ctx.close();
  }
}
