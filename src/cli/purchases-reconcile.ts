// `topsync purchases reconcile --statement FILE.csv`: a provider's transaction export matched against the ledger
// (statement.ts). Dry by default: a report. `--apply` settles the in_doubt and unverified purchases whose match is
// unique and confirmed by a verify read of the reference, each with an event.
import { readFileSync } from "node:fs";
import { UsageError } from "../errors.js";
import {
  type Applied,
  applyStatement,
  type ColumnMap,
  DEFAULT_COLUMNS,
  parseStatement,
  reconcileStatement,
  STATEMENT_FIELDS,
  type StatementField,
} from "../purchases/statement.js";
import type { CommandContext } from "./context.js";
import { openLedger } from "./database.js";
import { renderJson, renderTable, write } from "./output.js";

export interface ReconcileFlags {
  statement: string;
  columns?: string;
  apply?: boolean;
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
  const applied: Applied[] | undefined = flags.apply
    ? await applyStatement(db, await ctx.reseller(), report, flags.statement)
    : undefined;
  if (ctx.globals.json)
    return write(renderJson({ ...report, dry_run: !flags.apply, applied: applied ?? [] }));
  const period = report.period ? `${report.period.from} … ${report.period.to}` : "empty";
  write(
    `statement ${flags.statement}: ${report.lines} lines (${period}), ${report.matched} on ledger purchases\n\n` +
      `provider debits with no ledger purchase: ${report.providerOnly.length}\n`,
  );
  const table = <T>(items: T[], columns: Parameters<typeof renderTable<T>>[1]) => {
    if (items.length > 0) write(renderTable(items, columns));
  };
  table(report.providerOnly, [
    { header: "LINE", value: (r) => String(r.line) },
    { header: "REFERENCE", value: (r) => r.reference },
    { header: "AMOUNT", value: (r) => r.amount },
    { header: "DATE", value: (r) => r.date },
    { header: "STATUS", value: (r) => r.status },
  ]);
  write(`\nledger purchases the provider does not list: ${report.ledgerOnly.length}\n`);
  table(report.ledgerOnly, [
    { header: "ID", value: (r) => String(r.id) },
    { header: "REFERENCE", value: (r) => r.reference },
    { header: "STATE", value: (r) => r.state },
    { header: "AMOUNT", value: (r) => r.amount ?? "-" },
  ]);
  write(`\namount differences: ${report.amountDifferences.length}\n`);
  table(report.amountDifferences, [
    { header: "ID", value: (r) => String(r.id) },
    { header: "REFERENCE", value: (r) => r.reference },
    { header: "LEDGER", value: (r) => r.ledger ?? "-" },
    { header: "STATEMENT", value: (r) => r.statement },
  ]);
  write(`\nstatus differences: ${report.statusDifferences.length}\n`);
  table(report.statusDifferences, [
    { header: "ID", value: (r) => String(r.id) },
    { header: "REFERENCE", value: (r) => r.reference },
    { header: "LEDGER", value: (r) => r.state },
    { header: "STATEMENT", value: (r) => r.statement },
  ]);
  write(`\nin_doubt or unverified purchases the statement can resolve: ${report.resolvable.length}\n`);
  table(report.resolvable, [
    { header: "ID", value: (r) => String(r.id) },
    { header: "STATE", value: (r) => r.state },
    { header: "LINE", value: (r) => String(r.line) },
    { header: "REFERENCE", value: (r) => r.reference },
    { header: "STATEMENT", value: (r) => r.statement },
  ]);
  if (!applied) {
    if (report.resolvable.length > 0)
      write("\ndry run: --apply settles these when a verify read of each reference proves it\n");
    return;
  }
  write(`\napplied:\n`);
  table(applied, [
    { header: "ID", value: (r) => String(r.id) },
    { header: "REFERENCE", value: (r) => r.reference },
    { header: "RESULT", value: (r) => r.result },
    { header: "WHY", value: (r) => r.why },
  ]);
}
