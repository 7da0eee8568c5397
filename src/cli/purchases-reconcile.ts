// `topsync purchases reconcile --statement FILE.csv`: a provider's transaction export matched against the ledger
// (statement.ts). Dry by default: a report, in the formats of `report` (--format text|markdown|json|html,
// --out FILE). `--apply` settles the in_doubt and unverified purchases whose match is unique and confirmed by a
// verify read of the reference, each with an event.
import { readFileSync } from "node:fs";
import { UsageError } from "../errors.js";
import {
  type Applied,
  applyStatement,
  type ColumnMap,
  DEFAULT_COLUMNS,
  parseStatement,
  reconcileStatement,
  type SettleProgress,
  STATEMENT_FIELDS,
  type StatementField,
} from "../purchases/statement.js";
import { renderReport } from "../report/render.js";
import { statementDocument } from "../report/statement-document.js";
import type { CommandContext } from "./context.js";
import { openLedger } from "./database.js";
import { countLine, paceOf, progressReporter } from "./progress.js";
import { checkOut, deliver, parseFormat, processReportIo } from "./report-output.js";

export interface ReconcileFlags {
  statement: string;
  columns?: string;
  apply?: boolean;
  /** text (the default), markdown, json (the default with --json) or html, as `report`. */
  format?: string;
  out?: string;
}

export function parseColumns(text: string | undefined): ColumnMap {
  const columns = { ...DEFAULT_COLUMNS };
  if (!text) return columns;
  for (const pair of text.split(",")) {
    const [field, name] = pair.split("=").map((part) => part.trim());
    if (!STATEMENT_FIELDS.includes(field as StatementField) || !name)
      throw new UsageError(
        `--columns takes field=COLUMN pairs for ${STATEMENT_FIELDS.join(", ")}, such as reference=Ref,amount=Amount; got "${pair}"`,
      );
    columns[field as StatementField] = name;
  }
  return columns;
}

export async function purchasesReconcileCommand(ctx: CommandContext, flags: ReconcileFlags): Promise<void> {
  const columns = parseColumns(flags.columns);
  const format = parseFormat(flags.format, ctx.globals.json);
  if (flags.out) checkOut(flags.out);
  let text: string;
  try {
    text = readFileSync(flags.statement, "utf8");
  } catch (error) {
    throw new UsageError(
      `--statement ${flags.statement}: cannot read it: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  const lines = parseStatement(text, flags.statement, columns);
  const { db } = await openLedger(ctx);
  const report = await reconcileStatement(db, lines);
  let applied: Applied[] | undefined;
  if (flags.apply) {
    const reseller = await ctx.reseller();
    const progress = progressReporter<SettleProgress>((p, elapsed) => {
      const pace = paceOf("reseller", reseller.http.pace());
      return countLine({ ...p, unit: "purchases checked by verify", pace }, elapsed);
    }, ctx.logger);
    applied = await applyStatement(db, reseller, report, flags.statement, {
      onProgress: progress.update,
    }).finally(progress.done);
  }
  const rendered = renderReport(format, {
    document: () =>
      statementDocument(report, { file: flags.statement, applied, timeZone: ctx.config.timezone }),
    json: () => ({ ...report, dry_run: !flags.apply, applied: applied ?? [] }),
  });
  deliver(processReportIo, rendered, flags.out, "the reconciliation");
}
