// `topsync verify <reference>`: one verification read, as the reseller reports it.
import { DataError } from "../errors.js";
import { formatMoney } from "../money.js";
import { inert } from "../text/inert.js";
import type { CommandContext } from "./context.js";
import { renderJson, write } from "./output.js";

export async function verifyCommand(ctx: CommandContext, reference: string): Promise<void> {
  if (!/^[A-Za-z0-9_-]{4,100}$/.test(reference)) {
    throw new DataError(`"${reference}" is not a transaction reference (letters, digits, - and _ only)`);
  }
  const verification = await (await ctx.reseller()).verifyTransaction(reference);
  if (ctx.globals.json)
    return write(renderJson(verification.found ? verification.transaction : { found: false, reference }));
  if (!verification.found) {
    write(`${reference}: not found (the reseller does not know this reference yet, or it is wrong)\n`);
    process.exitCode = 1;
    return;
  }
  const t = verification.transaction;
  const lines = [
    ["reference", t.reference],
    ["status", `${t.status}${verification.status === "unknown" ? " (not a status topsync knows)" : ""}`],
    ["amount", t.amount ? formatMoney(t.amount) : "-"],
    ["service", t.service ?? "-"],
    ["phone", t.phone_number ?? "-"],
    ["created", t.created_at ?? "-"],
    ["provider says", t.true_response ?? "-"],
  ];
  write(lines.map(([k, v]) => `${k!.padEnd(14)}${inert(String(v))}`).join("\n") + "\n");
}
