// `topsync keys new`, `approve`, `reject`: an approver's key pair, and signed decisions on saved plans.
import { mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { TopsyncError, UsageError } from "../errors.js";
import { readTarget } from "./apply.js";
import type { CommandContext } from "./context.js";
import { openLedger } from "./database.js";
import { renderJson, write } from "./output.js";
import { personText } from "./person-text.js";

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export async function keysNewCommand(flags: { as: string; out?: string }, json: boolean): Promise<void> {
  if (!NAME.test(flags.as))
    throw new UsageError(`--as must be a name of letters, digits, . _ -; got "${flags.as}"`);
  const { newKeyPair } = await import("../plans/approvals.js");
  const path = flags.out ?? join(homedir(), ".topsync", `${flags.as}.key`);
  const pair = newKeyPair();
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(path, pair.privatePem, { mode: 0o600, flag: "wx" });
  } catch (error) {
    const why =
      (error as NodeJS.ErrnoException).code === "EEXIST"
        ? "it exists; keys are never overwritten"
        : (error as Error).message;
    throw new UsageError(`cannot write the private key to ${path}: ${why}`, "KEY_FILE");
  }
  if (json)
    return write(renderJson({ approver: flags.as, private_key_file: path, public_key: pair.publicKey }));
  write(`wrote ${flags.as}'s private key to ${path} (mode 0600; keep it to yourself)\n`);
  write(`add this line under approvals.approvers in the config:\n  ${flags.as}: "${pair.publicKey}"\n`);
}

export interface DecisionFlags {
  as: string;
  key: string;
  reason?: string;
}

export async function decisionCommand(
  ctx: CommandContext,
  target: string,
  flags: DecisionFlags,
  decision: "approve" | "reject",
): Promise<void> {
  const reason = personText(flags.reason, "--reason");
  if (decision === "reject" && !reason) throw new UsageError("reject needs --reason TEXT");
  const { readPrivateKey } = await import("../plans/approvals.js");
  let key: ReturnType<typeof readPrivateKey>;
  try {
    key = readPrivateKey(flags.key);
  } catch (error) {
    throw new UsageError(`cannot read the private key ${flags.key}: ${(error as Error).message}`, "KEY_FILE");
  }
  const plan = await readTarget(target);
  const database = await openLedger(ctx);
  const { decide } = await import("../plans/decide.js");
  const result = await decide(database.db, ctx.config, plan, {
    approver: flags.as,
    key,
    decision,
    reason: reason ?? null,
    now: new Date(),
    actor: `cli:${flags.as}`,
  });
  let carried = true;
  if (plan.file && plan.path) {
    // The file carries its approvals too, so a copy travels with them (apply checks each against the config).
    const { writePlanFile } = await import("../plans/document.js");
    try {
      writePlanFile(plan.path, { ...plan.file, approvals: [...plan.file.approvals, result.approval] });
    } catch (error) {
      carried = false;
      ctx.logger.warn(
        `the decision is in the ledger, but the file could not be written: ${(error as Error).message}`,
      );
    }
  }
  const { state, row } = result;
  if (ctx.globals.json)
    return write(
      renderJson({
        plan_id: row.id,
        decision,
        approver: flags.as,
        status: row.status,
        approvals: state.valid,
        approvals_required: state.required,
        carried_in_file: plan.file ? carried : null,
        cancelled: result.cancelled,
      }),
    );
  if (decision === "reject") {
    write(
      `plan ${row.id} rejected by ${flags.as}${result.cancelled ? `; ${result.cancelled} held purchases cancelled` : ""}\n`,
    );
    return;
  }
  write(
    `plan ${row.id} approved by ${flags.as}: ${state.valid.length} of ${state.required} distinct approvals` +
      `${row.status === "approved" ? "; it is approved and can be applied" : ""}\n`,
  );
  if (!carried) throw new TopsyncError("PLAN_FILE", "the approval is recorded in the ledger only");
}
