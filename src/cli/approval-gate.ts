// The approval gate for a command that buys (`buy`, `purchases run`, `apply`): made only when approval rules are
// configured (its modules load only then), registering held runs as written by the operator running the command.
import { userInfo } from "node:os";
import type { Database } from "../db/client.js";
import { UsageError } from "../errors.js";
import type { Authorship } from "../plans/approvals.js";
import { gateRequired, type RunGate } from "../purchases/gate.js";
import type { CommandContext } from "./context.js";

export async function gateFor(ctx: CommandContext, database: Database): Promise<RunGate | undefined> {
  if (!gateRequired(ctx.config)) return undefined;
  const { approvalGate } = await import("../plans/gate.js");
  return approvalGate({ database, config: ctx.config, logger: ctx.logger, author: operatorName() });
}

/**
 * The author of a plan a command saves: the operating system's account without `--as` (or with `--as` naming it),
 * an approver proven by `--key`, or else a name claimed (such a plan needs one approval more).
 */
export async function planAuthor(as: string | undefined, keyFile: string | undefined): Promise<Authorship> {
  const { isAuthor, readPrivateKey } = await import("../plans/approvals.js");
  if (keyFile === undefined) {
    if (as === undefined || isAuthor(as, operatorName()))
      return { name: as ?? operatorName(), proof: "account" };
    return { name: as, proof: "claimed" };
  }
  if (as === undefined) throw new UsageError("--key needs --as NAME: the approver whose key it is");
  try {
    return { name: as, proof: "key", key: readPrivateKey(keyFile) };
  } catch (error) {
    throw new UsageError(`cannot read the private key ${keyFile}: ${(error as Error).message}`, "KEY_FILE");
  }
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
