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
import type { ResellerClient, Verification } from "../reseller/client.js";
import {
  type Evidence,
  matchProof,
  NO_IN_DOUBT_CANDIDATE,
  type ProofMatch,
  stillOnly,
} from "./proof-match.js";
import { settleByProof } from "./proof-settle.js";

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
  resolvable: Array<{
    id: number;
    state: PurchaseState;
    line: number;
    reference: string;
    statement: string;
    /** The line's amount and date, which --apply matches again before it settles. */
    amount: string;
    date: string;
  }>;
  /**
   * Lines no purchase carries the reference of that could be an in_doubt purchase, but not only that one (another
   * in_doubt purchase, a purchase in flight or settled without a reference could be it too, or another line could be
   * that purchase): why, for a person. They are among `providerOnly` too.
   */
  unmatched: Array<{ line: number; reference: string; why: string }>;
}

const SLACK_MS = 86_400_000;
/**
 * How far a line's date may be from a purchase's POST for the line to be that purchase: a day, as statements often
 * write a local date without a zone, or a date alone.
 */
export const STATEMENT_MATCH_WINDOW_MS = SLACK_MS;

/** Matches statement lines against the ledger for the statement's period (a day of slack either side). */
export async function reconcileStatement(
  db: Executor,
  lines: StatementLine[],
  /** The statement's name, for the reasons written. */
  file = "the statement",
): Promise<StatementReport> {
  const report: StatementReport = {
    period: null,
    lines: lines.length,
    matched: 0,
    providerOnly: [],
    ledgerOnly: [],
    amountDifferences: [],
    statusDifferences: [],
    resolvable: [],
    unmatched: [],
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
  const unowned: StatementLine[] = [];
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
        report.resolvable.push({ id, state: own.state, ...resolvableLine(line) });
      continue;
    }
    unowned.push(line);
  }
  await matchUnownedLines(db, unowned, file, report);
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

function resolvableLine(line: StatementLine) {
  return {
    line: line.line,
    reference: line.reference,
    statement: line.status,
    amount: line.amount,
    date: line.date.toISOString(),
  };
}

/** A statement line as the provider's evidence of one transaction (proof-match.ts). */
function lineEvidence(
  line: { line: number; reference: string; phone: string; amount: string; date: Date },
  file: string,
): Evidence {
  return {
    reference: line.reference,
    phone: line.phone === "" ? null : line.phone,
    amount: line.amount,
    plan: null,
    at: line.date,
    what: `${file} line ${line.line}`,
  };
}

/**
 * Lines whose reference no purchase carries: each is matched by the rule of proof-match.ts, and is resolvable when
 * it is the only purchase the line can be, no other line can be that purchase, and the line's status is final.
 * The rest are debits with no ledger purchase; those an in_doubt purchase could be are listed with why.
 */
async function matchUnownedLines(
  db: Executor,
  lines: readonly StatementLine[],
  file: string,
  report: StatementReport,
): Promise<void> {
  const matches = new Map<number, ProofMatch>();
  const linesOf = new Map<number, number>(); // in_doubt purchase id → how many lines could be it
  for (const line of lines) {
    const match = await matchProof(db, lineEvidence(line, file), STATEMENT_MATCH_WINDOW_MS);
    matches.set(line.line, match);
    const ids =
      match.kind === "unique" ? [match.purchase.id] : match.kind === "unmatched" ? match.candidates : [];
    for (const id of ids) linesOf.set(id, (linesOf.get(id) ?? 0) + 1);
  }
  for (const line of lines) {
    const match = matches.get(line.line)!;
    if (match.kind === "unique" && linesOf.get(match.purchase.id) === 1) {
      if (statementOutcome(line.status) !== "pending") {
        report.resolvable.push({
          id: match.purchase.id,
          state: match.purchase.state,
          ...resolvableLine(line),
        });
        continue;
      }
    }
    report.providerOnly.push({
      line: line.line,
      reference: line.reference,
      amount: line.amount,
      date: line.date.toISOString(),
      status: line.status,
    });
    const why =
      match.kind === "unmatched"
        ? match.candidates.length > 0 || !match.reason.endsWith(NO_IN_DOUBT_CANDIDATE)
          ? match.reason
          : undefined
        : match.kind === "unique"
          ? linesOf.get(match.purchase.id) === 1
            ? `purchase ${match.purchase.id} could be it, but the line's status (${line.status}) is not final`
            : `purchase ${match.purchase.id} could be it, but so could another line of the statement: a person decides`
          : undefined;
    if (why) report.unmatched.push({ line: line.line, reference: line.reference, why });
  }
}

export interface Applied {
  id: number;
  reference: string;
  result: "succeeded" | "failed" | "unchanged";
  why: string;
}

/**
 * Settles the resolvable purchases the verify answer of their reference proves: the answer is about that
 * purchase (reference, phone, amount, envelope) and final, and an in_doubt purchase is still the only one its line
 * can be. Anything else is left as it is, with the reason.
 */
export async function applyStatement(
  db: Executor,
  reseller: ResellerClient,
  report: StatementReport,
  file: string,
): Promise<Applied[]> {
  const applied: Applied[] = [];
  for (const item of report.resolvable) applied.push(await applyLine(db, reseller, item, file));
  return applied;
}

async function applyLine(
  db: Executor,
  reseller: ResellerClient,
  item: StatementReport["resolvable"][number],
  file: string,
): Promise<Applied> {
  const unchanged = (why: string): Applied => ({
    id: item.id,
    reference: item.reference,
    result: "unchanged",
    why,
  });
  const [row] = await rows<{ phone: string; amount: string | null; state: PurchaseState }>(
    db,
    sql`select phone, coalesce(charged_amount, amount)::text as amount, state from purchases where id = ${item.id}`,
  );
  if (!row || (row.state !== "in_doubt" && row.state !== "unverified"))
    return unchanged(`it is ${row?.state ?? "gone"} now`);
  let why = `${file} line ${item.line} lists reference ${item.reference} (${item.statement})`;
  if (row.state === "in_doubt") {
    // The line's phone is the purchase's (it matched on every digit the line shows).
    const evidence = lineEvidence({ ...item, phone: row.phone, date: new Date(item.date) }, file);
    const still = await stillOnly(db, evidence, STATEMENT_MATCH_WINDOW_MS, item.id);
    if (!still.only) return unchanged(still.reason);
    why = `${why}, and ${still.why}`;
  }
  let verification: Verification;
  try {
    verification = await reseller.verifyTransaction(item.reference);
  } catch (error) {
    return unchanged(`verify ${item.reference} failed: ${(error as Error).message}`);
  }
  const purchase = { id: item.id, state: row.state, phone: row.phone, amount: row.amount ?? "0" };
  const outcome = await settleByProof(
    db,
    purchase,
    item.reference,
    verification,
    {
      actor: STATEMENT_ACTOR,
      reason: `settled by proof: ${why}; its verify answer names this purchase's phone and amount`,
    },
    [row.state],
  );
  if (outcome.kind === "unchanged") return unchanged(outcome.why);
  return {
    id: item.id,
    reference: item.reference,
    result: outcome.to,
    why: `verify: ${verificationStatus(verification)}`,
  };
}

function verificationStatus(verification: Verification): string {
  return verification.found ? verification.rawStatus : "not found";
}
