// `topsync purchases reconcile --statement FILE.csv`: a provider's transaction export matched against the ledger
// (statement.ts). Dry by default: a report, in the formats of `report` (--format text|markdown|json|html,
// --out FILE). `--apply` settles the in_doubt and unverified purchases whose match is unique and confirmed by a
// verify read of the reference, each with an event.
import { STATEMENT_DATE_FORMATS } from "../config/index.js";
import { UsageError } from "../errors.js";
import { maskPhone } from "../log/mask.js";
import type { DateFormat } from "../purchases/sources/statement-cells.js";
import {
  type ColumnMap,
  DEFAULT_COLUMNS,
  openStatement,
  STATEMENT_FIELDS,
  type StatementField,
} from "../purchases/sources/statement-csv.js";
import {
  type Applied,
  applyStatement,
  reconcileStatement,
  type SettleProgress,
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
  /** ISO or DD/MM/YYYY; the config's `statements.date_format` when absent. */
  dateFormat?: string;
  /** true or false (--no-decimal-comma); the config's `statements.decimal_comma` when absent. */
  decimalComma?: boolean;
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

export function parseDateFormat(text: string | undefined, configured: DateFormat): DateFormat {
  if (text === undefined) return configured;
  const found = STATEMENT_DATE_FORMATS.find((format) => format.toLowerCase() === text.trim().toLowerCase());
  if (!found)
    throw new UsageError(
      `--date-format must be ${STATEMENT_DATE_FORMATS.join(" or ")}; got "${text}"`,
      "BAD_DATE_FORMAT",
    );
  return found;
}

export async function purchasesReconcileCommand(ctx: CommandContext, flags: ReconcileFlags): Promise<void> {
  const columns = parseColumns(flags.columns);
  const dateFormat = parseDateFormat(flags.dateFormat, ctx.config.statements.date_format);
  const format = parseFormat(flags.format, ctx.globals.json);
  if (flags.out) checkOut(flags.out);
  const statement = await openStatement(
    flags.statement,
    {
      columns,
      dateFormat,
      decimalComma: flags.decimalComma ?? ctx.config.statements.decimal_comma,
      timeZone: ctx.config.timezone,
    },
    new Date(),
  );
  try {
    const { db } = await openLedger(ctx);
    const matching = progressReporter<SettleProgress>(
      (p, elapsed) => countLine({ ...p, unit: "statement lines matched" }, elapsed),
      ctx.logger,
    );
    const report = await reconcileStatement(db, statement, {
      file: flags.statement,
      onProgress: matching.update,
    }).finally(matching.done);
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
      json: () => ({
        ...report,
        resolvable: report.resolvable.map((r) => ({ ...r, phone: maskPhone(r.phone) })),
        dry_run: !flags.apply,
        applied: applied ?? [],
      }),
    });
    deliver(processReportIo, rendered, flags.out, "the reconciliation");
  } finally {
    await statement.close();
  }
}
