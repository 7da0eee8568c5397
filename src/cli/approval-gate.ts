// The approval gate for a command that buys (`buy`, `purchases run`, `apply`): made only when approval rules are
// configured (its modules load only then), registering held runs as written by the operator running the command.
import { userInfo } from "node:os";
import type { Database } from "../db/client.js";
import { gateRequired, type RunGate } from "../purchases/gate.js";
import type { CommandContext } from "./context.js";

export async function gateFor(ctx: CommandContext, database: Database): Promise<RunGate | undefined> {
  if (!gateRequired(ctx.config)) return undefined;
  const { approvalGate } = await import("../plans/gate.js");
  return approvalGate({ database, config: ctx.config, logger: ctx.logger, author: operatorName() });
}

/** Who runs the command: the operating system's user. */
export function operatorName(): string {
  try {
    return userInfo().username || process.env.USER || "operator";
  } catch {
    return process.env.USER || "operator";
  }
}

/** Who acts from the command line: `cli:<user>`. */
export function cliActor(): string {
  return `cli:${operatorName()}`;
}
