// `topsync verify <reference>`: one verification read, as the reseller reports it — with every phone number the
// answer writes masked (its `phone_number`, a `true_response` naming the number whole, …) unless --show-phone.
import { DataError } from "../errors.js";
import { maskPhonesDeep } from "../log/mask.js";
import { formatMoney } from "../money.js";
import { phoneView } from "../report/format.js";
import { inert } from "../text/inert.js";
import type { CommandContext } from "./context.js";
import { renderJson, write } from "./output.js";

export async function verifyCommand(
  ctx: CommandContext,
  reference: string,
  flags: { showPhone?: boolean } = {},
): Promise<void> {
  if (!/^[A-Za-z0-9_-]{4,100}$/.test(reference)) {
    throw new DataError(`"${reference}" is not a transaction reference (letters, digits, - and _ only)`);
  }
  const verification = await (await ctx.reseller()).verifyTransaction(reference);
  const showPhone = flags.showPhone === true;
  if (ctx.globals.json) {
    const shown = verification.found ? verification.transaction : { found: false, reference };
    // Masked as written (amounts as their text), not as objects: a copy of an amount would lose its JSON form.
    return write(showPhone ? renderJson(shown) : renderJson(maskPhonesDeep(JSON.parse(renderJson(shown)))));
  }
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
  const phones = phoneView(showPhone);
  write(lines.map(([k, v]) => `${k!.padEnd(14)}${inert(phones.text(String(v)))}`).join("\n") + "\n");
}
