// The demo's tour of saved plans: a promo saved as a plan and shown; its apply refused without approval; approved
// with a demo key; shown stale when the sandbox raises a price, and refused; applied once prices are back; and a
// second apply that buys nothing.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config/index.js";
import { TopsyncError } from "../errors.js";
import { parseMoney } from "../money.js";
import { newKeyPair } from "../plans/approvals.js";
import type { Sandbox } from "../sandbox/index.js";
import { applyCommand } from "./apply.js";
import { decisionCommand } from "./approvals.js";
import type { CommandContext } from "./context.js";
import { write } from "./output.js";
import { purchasesPlanCommand } from "./saved-plans.js";
import { showCommand } from "./show.js";

export async function demoSavedPlans(ctx: CommandContext, sandbox: Sandbox, dir: string): Promise<void> {
  const key = join(dir, "ada.key");
  const pair = newKeyPair();
  writeFileSync(key, pair.privatePem, { mode: 0o600 });
  const recipients = Array.from({ length: 5 }, (_, i) => ({
    phone: `0803${String(6_660_000 + i)}`,
    ported: false,
  }));
  const config: Config = {
    ...ctx.config,
    purchases: [
      ...ctx.config.purchases,
      {
        name: "demo-promo",
        plan: { kind: "id", network: "MTN", plan_id: "102" },
        recipients,
        catch_up: 6 * 3_600_000,
        enabled: true,
      },
    ],
    approvals: {
      rules: [{ above: parseMoney("1000.00"), approvals: 1 }],
      approvers: { ada: pair.publicKey },
      plan_ttl: ctx.config.approvals.plan_ttl,
    },
  };
  const planCtx: CommandContext = { ...ctx, config };
  const file = join(dir, "promo.plan");
  const exitCode = process.exitCode;
  const attempt = async (what: string, body: () => Promise<void>) => {
    write(`\n$ topsync ${what}\n`);
    try {
      await body();
    } catch (error) {
      if (!(error instanceof TopsyncError)) throw error;
      write(`${error.message}\n(exit ${error.exitCode})\n`);
    }
  };
  const debits = () => sandbox.debits().length;
  write("\n== saved plans: review, approve, apply exactly ==\n");
  write(
    `(approvals.rules: a plan above 1000.00 needs 1 approver; approvals.approvers: ada: "${pair.publicKey}")\n`,
  );
  await attempt(`purchases plan --job demo-promo --now --save ${file}`, () =>
    purchasesPlanCommand(planCtx, { job: "demo-promo", now: true, save: file }),
  );
  await attempt(`show ${file}`, () => showCommand(planCtx, file, {}));
  await attempt(`apply ${file}`, () => applyCommand(planCtx, file, {}));
  await attempt(`approve ${file} --as ada --key ${key}`, () =>
    decisionCommand(planCtx, file, { as: "ada", key, reason: "demo promo" }, "approve"),
  );
  write(
    '\n(the sandbox raises MTN plan 102 from 305.00 to 350.00: POST /__admin/options {"planPrices": {"102": "350.00"}})\n',
  );
  sandbox.setOptions({ planPrices: { "102": "350.00" } });
  await attempt(`apply ${file}`, () => applyCommand(planCtx, file, {}));
  sandbox.setOptions({ planPrices: {} });
  write("\n(the price is back to 305.00)\n");
  const before = debits();
  await attempt(`apply ${file}`, () => applyCommand(planCtx, file, {}));
  write(`(${debits() - before} debits at the sandbox)\n`);
  const again = debits();
  await attempt(`apply ${file}`, () => applyCommand(planCtx, file, {}));
  write(`(${debits() - again} debits at the sandbox: a plan applies once)\n`);
  process.exitCode = exitCode;
}
