// A provider's statement as tests hand it to `topsync purchases reconcile`: transactions written as the reseller's
// export writes them, and the command run with --json and --apply, its report parsed.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Debit } from "../../src/sandbox/records.js";
import { runCli } from "./cli.js";

/** A statement file of these transactions, each with `status`, in a folder of its own. */
export function statementOf(
  transactions: ReadonlyArray<Pick<Debit, "reference" | "phone_number" | "amount" | "at">>,
  status = "successful",
): string {
  const file = join(mkdtempSync(join(tmpdir(), "topsync-statement-")), "statement.csv");
  const lines = transactions.map((t) => `${t.reference},${t.phone_number},${t.amount},${t.at},${status}`);
  writeFileSync(file, `reference,phone,amount,date,status\n${lines.join("\n")}\n`);
  return file;
}

/** `purchases reconcile --statement F --apply --json` with `configFile`: its exit code, standard error and report. */
export async function reconcileApplied<Report>(
  configFile: string,
  statement: string,
): Promise<{ code: number; stderr: string; report: Report }> {
  const out = await runCli([
    "-c",
    configFile,
    "--json",
    "purchases",
    "reconcile",
    "--statement",
    statement,
    "--apply",
  ]);
  return {
    code: out.code,
    stderr: out.stderr,
    report: (out.code === 0 ? JSON.parse(out.stdout) : {}) as Report,
  };
}
