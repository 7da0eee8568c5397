import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  write
} from "./chunk-NOWJV5E2.js";
import {
  renderJson
} from "./chunk-PKFIHURA.js";
import {
  inert
} from "./chunk-IIT3DDOC.js";
import {
  DataError
} from "./chunk-3SYTADOT.js";
import {
  formatMoney
} from "./chunk-57HFVDAX.js";
import "./chunk-TULZGMTI.js";
import "./chunk-V4RWK56N.js";

// dist/cli/verify.js
async function verifyCommand(ctx, reference) {
  if (!/^[A-Za-z0-9_-]{4,100}$/.test(reference)) {
    throw new DataError(`"${reference}" is not a transaction reference (letters, digits, - and _ only)`);
  }
  const verification = await ctx.reseller().verifyTransaction(reference);
  if (ctx.globals.json)
    return write(renderJson(verification.found ? verification.transaction : { found: false, reference }));
  if (!verification.found) {
    write(`${reference}: not found (the reseller does not know this reference yet, or it is wrong)
`);
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
    ["provider says", t.true_response ?? "-"]
  ];
  write(lines.map(([k, v]) => `${k.padEnd(14)}${inert(String(v))}`).join("\n") + "\n");
}
export {
  verifyCommand
};
