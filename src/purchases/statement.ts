// A provider's transaction export (a statement CSV) matched against the ledger for its period: debits with no
// ledger row, ledger purchases the provider does not list, amount and status differences, and in_doubt
// purchases a statement line could resolve. Applying settles only what a verify read of the reference proves
// (verify-check.ts), each with an event; everything else is a report for a person.
import { parse } from "csv-parse/sync";
import { sql } from "drizzle-orm";
import { type Executor, rows } from "../db/client.js";
import type { PurchaseState } from "../db/schema.js";
import { DataError } from "../errors.js";
import { isMoneyText, parseMoney } from "../money.js";
import type { ResellerClient } from "../reseller/client.js";
import { otherPurchaseWithReference, settleInDoubtByProof } from "./ledger.js";
import { sameVisibleDigits, verifyDisagreements } from "./verify-check.js";

export const STATEMENT_FIELDS = ["reference", "phone", "amount", "date", "status"] as const;
export type StatementField = (typeof STATEMENT_FIELDS)[number];
/** Which CSV column holds each field (header names, matched case-insensitively). */
export type ColumnMap = Record<StatementField, string>;
export const DEFAULT_COLUMNS: ColumnMap = {
  reference: "reference",
  phone: "phone",
  amount: "amount",
  date: "date",
  status: "status",
};
/** The actor of events written by `purchases reconcile --apply`. */
export const STATEMENT_ACTOR = "statement+verify";

export interface StatementLine {
  /** 1-based line in the file (the header is line 1). */
  line: number;
  reference: string;
  phone: string;
  amount: string;
  date: Date;
  status: string;
}

/** Parses a statement; a missing column or a bad value is a DataError naming the file, line and column. */
export function parseStatement(text: string, file: string, columns: ColumnMap): StatementLine[] {
  let records: string[][];
  try {
    records = parse(text, { bom: true, skip_empty_lines: true, relax_column_count: true, trim: true });
  } catch (error) {
    throw new DataError(`${file}: not a CSV file: ${(error as Error).message}`);
  }
  const [header, ...body] = records;
  if (!header) throw new DataError(`${file}: empty statement (no header line)`);
  const index = {} as Record<StatementField, number>;
  for (const field of STATEMENT_FIELDS) {
    const at = header.findIndex((name) => name.toLowerCase() === columns[field].toLowerCase());
    if (at === -1)
      throw new DataError(
        `${file}: no column "${columns[field]}" for ${field} (columns: ${header.join(", ")}); map it with --columns ${field}=NAME`,
      );
    index[field] = at;
  }
  return body.map((record, i) => {
    const line = i + 2;
    const cell = (field: StatementField) => (record[index[field]] ?? "").trim();
    const where = (field: StatementField) => `${file}:${line}: column "${columns[field]}"`;
    const reference = cell("reference");
    if (!reference) throw new DataError(`${where("reference")} is empty`);
    const amountText = cell("amount")
      .replace(/[\u20a6,\s]/g, "")
      .replace(/^N(?=\d)/, "");
    if (!isMoneyText(amountText))
      throw new DataError(`${where("amount")}: "${cell("amount")}" is not an amount`);
    const date = new Date(cell("date"));
    if (Number.isNaN(date.getTime()))
      throw new DataError(`${where("date")}: "${cell("date")}" is not a date`);
    return {
      line,
      reference,
      phone: cell("phone"),
      amount: parseMoney(amountText).toFixed(2),
      date,
      status: cell("status").toLowerCase(),
    };
  });
}

/** What a statement status means: success, failed (failed or reversed), or not final. */
export function statementOutcome(status: string): "success" | "failed" | "pending" {
  if (/^(success|successful|succeeded|delivered|completed)$/.test(status)) return "success";
  if (/^(failed|failure|reversed|refunded|declined)$/.test(status)) return "failed";
  return "pending";
}

interface LedgerRow {
  id: number | string;
  state: PurchaseState;
  reference: string | null;
  phone: string;
  amount: string | null;
  at: Date | string;
}

export interface StatementReport {
  period: { from: string; to: string } | null;
  lines: number;
  matched: number;
  /** Debits the provider lists that no ledger purchase carries (money that left without a ledger row). */
  providerOnly: Array<{ line: number; reference: string; amount: string; date: string; status: string }>;
  /** Ledger purchases with a reference in the period that the statement does not list. */
  ledgerOnly: Array<{ id: number; reference: string; state: PurchaseState; amount: string | null }>;
  amountDifferences: Array<{ id: number; reference: string; ledger: string | null; statement: string }>;
  statusDifferences: Array<{ id: number; reference: string; state: PurchaseState; statement: string }>;
  /** in_doubt (or unverified) purchases one statement line can be, and only that one. */
  resolvable: Array<{ id: number; state: PurchaseState; line: number; reference: string; statement: string }>;
}

const SLACK_MS = 86_400_000;

/** Matches statement lines against the ledger for the statement's period (a day of slack either side). */
export async function reconcileStatement(db: Executor, lines: StatementLine[]): Promise<StatementReport> {
  const report: StatementReport = {
    period: null,
    lines: lines.length,
    matched: 0,
    providerOnly: [],
    ledgerOnly: [],
    amountDifferences: [],
    statusDifferences: [],
    resolvable: [],
  };
  if (lines.length === 0) return report;
  const times = lines.map((l) => l.date.getTime());
  const from = new Date(Math.min(...times));
  const to = new Date(Math.max(...times));
  report.period = { from: from.toISOString(), to: to.toISOString() };
  const ledger = await rows<LedgerRow>(
    db,
    // A purchase settled by proof from in_doubt has no submitted_at: its creation stands in for it.
    sql`select id, state, reference, phone, coalesce(charged_amount, amount)::text as amount,
          coalesce(submitted_at, created_at) as at from purchases
        where (reference is not null and coalesce(submitted_at, created_at)
                 between ${new Date(from.getTime() - SLACK_MS).toISOString()} and ${new Date(to.getTime() + SLACK_MS).toISOString()})
           or reference in (select jsonb_array_elements_text(${JSON.stringify(lines.map((l) => l.reference))}::jsonb))
           or (state in ('in_doubt', 'unverified') and updated_at >= ${new Date(from.getTime() - SLACK_MS).toISOString()})`,
  );
  const byReference = new Map(ledger.filter((r) => r.reference).map((r) => [r.reference!, r]));
  const listed = new Set(lines.map((l) => l.reference));
  const candidates = new Map<number, number[]>(); // purchase id → statement lines that could be it
  const lineCandidates = new Map<number, LedgerRow[]>();
  for (const line of lines) {
    const own = byReference.get(line.reference);
    if (own) {
      report.matched++;
      const id = Number(own.id);
      if (own.amount !== null && !parseMoney(own.amount).eq(parseMoney(line.amount)))
        report.amountDifferences.push({
          id,
          reference: line.reference,
          ledger: own.amount,
          statement: line.amount,
        });
      const outcome = statementOutcome(line.status);
      const differs =
        (outcome === "success" && own.state === "failed") ||
        (outcome === "failed" && own.state === "succeeded");
      if (differs)
        report.statusDifferences.push({
          id,
          reference: line.reference,
          state: own.state,
          statement: line.status,
        });
      if (own.state === "unverified" && outcome !== "pending")
        report.resolvable.push({
          id,
          state: own.state,
          line: line.line,
          reference: line.reference,
          statement: line.status,
        });
      continue;
    }
    const could = ledger.filter(
      (r) =>
        r.state === "in_doubt" &&
        line.phone !== "" &&
        sameVisibleDigits(line.phone, r.phone) &&
        r.amount !== null &&
        parseMoney(r.amount).eq(parseMoney(line.amount)),
    );
    lineCandidates.set(line.line, could);
    for (const r of could) candidates.set(Number(r.id), [...(candidates.get(Number(r.id)) ?? []), line.line]);
  }
  for (const line of lines) {
    const could = lineCandidates.get(line.line);
    if (!could) continue;
    // One line, one in_doubt purchase, and no other line that could be that purchase.
    const only = could.length === 1 ? could[0]! : undefined;
    if (only && candidates.get(Number(only.id))?.length === 1 && statementOutcome(line.status) !== "pending")
      report.resolvable.push({
        id: Number(only.id),
        state: only.state,
        line: line.line,
        reference: line.reference,
        statement: line.status,
      });
    else
      report.providerOnly.push({
        line: line.line,
        reference: line.reference,
        amount: line.amount,
        date: line.date.toISOString(),
        status: line.status,
      });
  }
  for (const row of ledger) {
    if (!row.reference || listed.has(row.reference)) continue;
    const at = new Date(row.at).getTime();
    if (at < from.getTime() - SLACK_MS || at > to.getTime() + SLACK_MS) continue;
    report.ledgerOnly.push({
      id: Number(row.id),
      reference: row.reference,
      state: row.state,
      amount: row.amount,
    });
  }
  return report;
}

/** How far `applyStatement` has got: resolvable purchases checked by a verify read, of all of them. */
export interface SettleProgress {
  done: number;
  total: number;
}

export interface Applied {
  id: number;
  reference: string;
  result: "succeeded" | "failed" | "unchanged";
  why: string;
}

/**
 * Settles the resolvable purchases the verify answer of their reference proves: the answer is about that
 * purchase (reference, phone, amount, envelope) and final. Anything else is left as it is, with the reason.
 */
export async function applyStatement(
  db: Executor,
  reseller: ResellerClient,
  report: StatementReport,
  file: string,
  options: { onProgress?: (progress: SettleProgress) => void } = {},
): Promise<Applied[]> {
  const applied: Applied[] = [];
  const total = report.resolvable.length;
  for (const item of report.resolvable) {
    options.onProgress?.({ done: applied.length, total }); // one entry in applied per purchase checked
    const unchanged = (why: string) =>
      applied.push({ id: item.id, reference: item.reference, result: "unchanged", why });
    const [row] = await rows<{ phone: string; amount: string | null; state: PurchaseState }>(
      db,
      sql`select phone, coalesce(charged_amount, amount)::text as amount, state from purchases where id = ${item.id}`,
    );
    if (!row || (row.state !== "in_doubt" && row.state !== "unverified")) {
      unchanged(`it is ${row?.state ?? "gone"} now`);
      continue;
    }
    let verification: Awaited<ReturnType<ResellerClient["verifyTransaction"]>>;
    try {
      verification = await reseller.verifyTransaction(item.reference);
    } catch (error) {
      unchanged(`verify ${item.reference} failed: ${(error as Error).message}`);
      continue;
    }
    if (!verification.found) {
      unchanged(`the provider's verify does not know ${item.reference}`);
      continue;
    }
    const problems = verifyDisagreements(
      { reference: item.reference, phone: row.phone, amount: row.amount ?? "0" },
      verification,
    );
    if (problems.length > 0) {
      unchanged(`the verify answer disagrees: ${problems.join("; ")}`);
      continue;
    }
    const status = verification.status;
    if (status !== "success" && status !== "failed" && status !== "reversed") {
      unchanged(`verify says ${verification.rawStatus}, not final`);
      continue;
    }
    if (row.state === "in_doubt") {
      const other = await otherPurchaseWithReference(db, item.reference, item.id);
      if (other) {
        unchanged(`reference ${item.reference} is already on purchase ${other.id}`);
        continue;
      }
    }
    const to = status === "success" ? "succeeded" : "failed";
    const moved = await settleInDoubtByProof(
      db,
      item.id,
      to,
      {
        reference: item.reference,
        providerStatus: verification.rawStatus,
        message: `the provider reports ${verification.rawStatus}`,
        refund: to === "failed" ? (verification.transaction.amount?.toFixed(2) ?? null) : null,
      },
      {
        actor: STATEMENT_ACTOR,
        reason: `settled by proof: ${file} line ${item.line} lists reference ${item.reference} (${item.statement}), and its verify answer (${verification.rawStatus}) names this purchase's phone and amount`,
        response: verification.raw,
      },
      [row.state],
    );
    if (moved)
      applied.push({
        id: item.id,
        reference: item.reference,
        result: to,
        why: `verify: ${verification.rawStatus}`,
      });
    else unchanged("it moved meanwhile");
  }
  options.onProgress?.({ done: applied.length, total });
  return applied;
}
