// A provider's transaction export (a statement CSV) matched against the ledger for its period: debits with no
// ledger row, ledger purchases the provider does not list, amount, status and phone differences, purchases listed on
// more than one line, and in_doubt purchases a statement line could resolve. Applying settles only what a verify read
// of the reference proves (verify-check.ts), each with an event, and flags a final purchase the line contradicts (a
// succeeded one listed as failed or reversed, a failed one listed as successful), or a purchase whose attempt before a
// person requeued it the line lists as successful, when verify says so too; everything else is a report for a person.
import { sql } from "drizzle-orm";
import { type Executor, rows } from "../db/client.js";
import type { PurchaseState } from "../db/schema.js";
import { maskPhone } from "../log/mask.js";
import { parseMoney } from "../money.js";
import type { ResellerClient, Verification } from "../reseller/client.js";
import { visiblePhone } from "../reseller/schemas.js";
import {
  type ContradictionNote,
  carriesFlag,
  EARLIER_ATTEMPT_DELIVERED,
  flagContradicted,
  flagEarlierAttemptDelivered,
} from "./ledger.js";
import {
  type Evidence,
  earlierAttempt,
  matchProof,
  NO_IN_DOUBT_CANDIDATE,
  type ProofMatch,
  stillOnly,
} from "./proof-match.js";
import {
  type Contradiction,
  contradictionOf,
  contradictionUnconfirmed,
  EARLIER_DELIVERY,
  earlierDelivered,
  earlierDeliveryUnconfirmed,
  isForAPerson,
  settleByProof,
} from "./proof-settle.js";
import type { Statement, StatementLine } from "./sources/statement-csv.js";
import {
  inDoubtPurchases,
  type LedgerRow,
  purchasesByReference,
  purchasesSentBetween,
  referencesOf,
} from "./statement-ledger.js";
import { sameVisibleDigits } from "./verify-check.js";

/** The actor of events written by `purchases reconcile --apply`. */
export const STATEMENT_ACTOR = "statement+verify";

/** What a statement status means: success, failed (failed or reversed), or not final. */
export function statementOutcome(status: string): "success" | "failed" | "pending" {
  if (/^(success|successful|succeeded|delivered|completed)$/.test(status)) return "success";
  if (/^(failed|failure|reversed|refunded|declined)$/.test(status)) return "failed";
  return "pending";
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
  /**
   * `earlier`: the reference is of the purchase's attempt before a person requeued it (listed successful), and `state`
   * is how that attempt ended.
   */
  statusDifferences: Array<{
    id: number;
    reference: string;
    state: PurchaseState;
    statement: string;
    earlier?: true;
  }>;
  /**
   * Lines naming a purchase's reference with a phone whose shown digits are not the purchase's: the provider says that
   * transaction went to another number. Both phones masked.
   */
  phoneDifferences: Array<{ id: number; reference: string; ledger: string; statement: string }>;
  /**
   * Ledger purchases the statement names on more than one line (`lines`): one purchase debited more than once, or
   * the export repeating a line. Either way not agreement: a person looks at each.
   */
  duplicates: Array<{ id: number; reference: string; lines: number }>;
  /** in_doubt (or unverified) purchases one statement line can be, and only that one. */
  resolvable: Array<{
    id: number;
    state: PurchaseState;
    line: number;
    reference: string;
    statement: string;
    /** The line's amount, date and phone (as the line shows it, masked or not), which --apply matches again with. */
    amount: string;
    date: string;
    phone: string;
  }>;
  /**
   * Lines no purchase carries the reference of that could be an in_doubt purchase, but not only that one (another
   * in_doubt purchase, a purchase in flight or settled without a reference could be it too, or another line could be
   * that purchase): why, for a person. They are among `providerOnly` too.
   */
  unmatched: Array<{ line: number; reference: string; why: string }>;
  /** Lines dated far from the statement's other lines (a placeholder date): not matched, shown for a person. */
  setAside: Array<{
    line: number;
    reference: string;
    amount: string;
    date: string;
    status: string;
    reason: string;
  }>;
  /** How many of each there are; each list holds the first MAX_LISTED of them. */
  totals: Record<Listed, number>;
}

type Listed =
  | "providerOnly"
  | "ledgerOnly"
  | "amountDifferences"
  | "statusDifferences"
  | "phoneDifferences"
  | "duplicates"
  | "resolvable"
  | "unmatched"
  | "setAside";

/** Entries a list of the report holds at most (the report of a million-line statement stays readable). */
export const MAX_LISTED = 10_000;
const SLACK_MS = 86_400_000;
/**
 * How far a line's date may be from a purchase's POST for the line to be that purchase: a day, as statements often
 * write a local date without a zone, or a date alone.
 */
export const STATEMENT_MATCH_WINDOW_MS = SLACK_MS;
/** Ledger purchases read at a time when looking for those the statement does not list. */
const LEDGER_PAGE = 2000;

/**
 * Matches a statement's lines against the ledger for the statement's period: each chunk of lines against the
 * purchases its references name (an in_doubt purchase with a day of slack either side, as a line near an edge may
 * be a purchase sent just outside it), then the purchases sent within exactly the period, page by page, against
 * the references seen. Memory holds a chunk, a page, the ids of the purchases listed and the in_doubt purchases.
 */
export async function reconcileStatement(
  db: Executor,
  statement: Statement,
  /** `file`: the statement's name, for the reasons written; `ledgerPage`: purchases read at a time. */
  options: {
    ledgerPage?: number;
    file?: string;
    /** Told how many of the statement's lines are matched so far, after each chunk. */
    onProgress?: (progress: SettleProgress) => void;
  } = {},
): Promise<StatementReport> {
  const file = options.file ?? "the statement";
  const report = emptyReport(statement.lines);
  if (!statement.period) return report;
  const { from, to } = statement.period;
  report.period = { from: from.toISOString(), to: to.toISOString() };
  const start = new Date(from.getTime() - SLACK_MS);
  const end = new Date(to.getTime() + SLACK_MS);
  const inDoubt = byAmount(await inDoubtPurchases(db, start, end));
  const listed = new IdSet(statement.lines); // ledger purchases a line of the statement names, once a line
  const candidates = new Map<number, number>(); // in_doubt purchase id → how many lines could be it
  const waiting = new Map<number, { line: StatementLine; purchase: { id: number; state: PurchaseState } }>(); // → the one line that can be it, so far
  const resolvableOwn = new Set<number>(); // unverified purchases listed resolvable (few): once each, however many lines
  const providerOnly = (line: StatementLine) =>
    add(report, "providerOnly", {
      line: line.line,
      reference: line.reference,
      amount: line.amount,
      date: line.date.toISOString(),
      status: line.status,
    });
  let seen = 0;
  options.onProgress?.({ done: 0, total: statement.lines });
  for await (const chunk of statement.chunks()) {
    seen += chunk.lines.length + chunk.setAside.length;
    options.onProgress?.({ done: seen, total: statement.lines });
    for (const line of chunk.setAside)
      add(report, "setAside", {
        line: line.line,
        reference: line.reference,
        amount: line.amount,
        date: line.date.toISOString(),
        status: line.status,
        reason: line.reason,
      });
    const ledger = await purchasesByReference(
      db,
      chunk.lines.map((l) => l.reference),
    );
    const byReference = new Map(ledger.map((r) => [r.reference!, r]));
    for (const line of chunk.lines) {
      const own = byReference.get(line.reference);
      if (own) {
        report.matched++;
        const id = Number(own.id);
        // Once a line: an id added twice is a purchase the statement lists twice. A line naming a purchase's earlier
        // attempt (before a person requeued it) does not list the purchase: its current transaction is another.
        if (!own.earlier) listed.add(id);
        if (
          own.amount !== null &&
          own.amount !== line.amount &&
          !parseMoney(own.amount).eq(parseMoney(line.amount))
        )
          add(report, "amountDifferences", {
            id,
            reference: line.reference,
            ledger: own.amount,
            statement: line.amount,
          });
        const outcome = statementOutcome(line.status);
        const differs =
          (outcome === "success" && own.state === "failed") ||
          (outcome === "failed" && own.state === "succeeded") ||
          (own.earlier && earlierDelivered(own.state, outcome));
        if (differs)
          add(report, "statusDifferences", {
            id,
            reference: line.reference,
            state: own.state,
            statement: line.status,
            ...(own.earlier ? { earlier: true as const } : {}),
          });
        // A phone the line shows readably that is not the purchase's (a pruned purchase keeps no phone to compare).
        const shown = line.phone === "" ? undefined : visiblePhone(line.phone);
        if (own.phone !== "" && shown !== undefined && !sameVisibleDigits(line.phone, own.phone))
          add(report, "phoneDifferences", {
            id,
            reference: line.reference,
            ledger: maskPhone(own.phone),
            statement: maskPhone(shown),
          });
        if (own.state === "unverified" && outcome !== "pending" && !resolvableOwn.has(id)) {
          resolvableOwn.add(id);
          add(report, "resolvable", { id, state: own.state, ...resolvableLine(line) });
        }
        continue;
      }
      // Only a line some in_doubt purchase could be (same amount, the phone's visible digits) is matched by the
      // rule of proof-match.ts, which also looks for rivals: purchases in flight or settled without a reference.
      const could = (inDoubt.get(line.amount) ?? []).filter(
        (r) => line.phone !== "" && sameVisibleDigits(line.phone, r.phone),
      );
      if (could.length === 0) {
        providerOnly(line);
        continue;
      }
      const match = await matchProof(db, lineEvidence(line, file), STATEMENT_MATCH_WINDOW_MS);
      const ids =
        match.kind === "unique" ? [match.purchase.id] : match.kind === "unmatched" ? match.candidates : [];
      for (const id of ids) candidates.set(id, (candidates.get(id) ?? 0) + 1);
      // One line, one in_doubt purchase, and no other line that could be that purchase: kept until the end, when
      // no later line can be it any more.
      if (
        match.kind === "unique" &&
        candidates.get(match.purchase.id) === 1 &&
        statementOutcome(line.status) !== "pending"
      )
        waiting.set(match.purchase.id, { line, purchase: match.purchase });
      else {
        providerOnly(line);
        const why = unmatchedWhy(match, line, candidates);
        if (why) add(report, "unmatched", { line: line.line, reference: line.reference, why });
      }
      for (const id of ids) {
        const earlier = waiting.get(id);
        if (earlier && earlier.line !== line && candidates.get(id)! > 1) {
          waiting.delete(id);
          providerOnly(earlier.line);
          add(report, "unmatched", {
            line: earlier.line.line,
            reference: earlier.line.reference,
            why: `purchase ${id} could be it, but so could another line of the statement: a person decides`,
          });
        }
      }
    }
  }
  for (const { line, purchase } of [...waiting.values()].sort((a, b) => a.line.line - b.line.line))
    add(report, "resolvable", { id: purchase.id, state: purchase.state, ...resolvableLine(line) });
  listed.seal();
  const repeated = listed.repeats();
  if (repeated.length > 0) {
    const references = await referencesOf(
      db,
      repeated.slice(0, MAX_LISTED).map((r) => r.id),
    );
    for (const { id, count } of repeated)
      add(report, "duplicates", { id, reference: references.get(id) ?? "", lines: count });
  }
  // The statement vouches only for its own period: a purchase sent in the slack before its first line or after its
  // last may sit on the neighbouring statement, so it is not reported missing from this one.
  for await (const page of purchasesSentBetween(db, from, to, options.ledgerPage ?? LEDGER_PAGE))
    for (const row of page)
      if (!listed.has(Number(row.id)))
        add(report, "ledgerOnly", {
          id: Number(row.id),
          reference: row.reference!,
          state: row.state,
          amount: row.amount,
        });
  return report;
}

function emptyReport(lines: number): StatementReport {
  return {
    period: null,
    lines,
    matched: 0,
    providerOnly: [],
    ledgerOnly: [],
    amountDifferences: [],
    statusDifferences: [],
    phoneDifferences: [],
    duplicates: [],
    resolvable: [],
    unmatched: [],
    setAside: [],
    totals: {
      providerOnly: 0,
      ledgerOnly: 0,
      amountDifferences: 0,
      statusDifferences: 0,
      phoneDifferences: 0,
      duplicates: 0,
      resolvable: 0,
      unmatched: 0,
      setAside: 0,
    },
  };
}

function resolvableLine(line: StatementLine) {
  return {
    line: line.line,
    reference: line.reference,
    statement: line.status,
    amount: line.amount,
    date: line.date.toISOString(),
    phone: line.phone,
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

/** Why a line an in_doubt purchase could be is not resolvable, for a person; undefined when no purchase could be it. */
function unmatchedWhy(
  match: ProofMatch,
  line: StatementLine,
  candidates: Map<number, number>,
): string | undefined {
  if (match.kind === "unmatched")
    return match.candidates.length > 0 || !match.reason.endsWith(NO_IN_DOUBT_CANDIDATE)
      ? match.reason
      : undefined;
  if (match.kind === "unique")
    return candidates.get(match.purchase.id) === 1
      ? `purchase ${match.purchase.id} could be it, but the line's status (${line.status}) is not final`
      : `purchase ${match.purchase.id} could be it, but so could another line of the statement: a person decides`;
  return undefined;
}

/**
 * Counts an entry, and lists it while the list has room. Entries come in the order they are listed in (by line,
 * or by time for the ledger's), but for a line that waited to see whether another line could be its in_doubt
 * purchase: that one is put in its place among the lines, and the last one listed gives way to it.
 */
function add<K extends Listed>(report: StatementReport, kind: K, entry: StatementReport[K][number]): void {
  report.totals[kind]++;
  const list = report[kind] as Array<StatementReport[K][number]>;
  if (kind !== "providerOnly") {
    if (list.length < MAX_LISTED) list.push(entry);
    return;
  }
  const lines = list as StatementReport["providerOnly"];
  const line = (entry as StatementReport["providerOnly"][number]).line;
  if (lines.length >= MAX_LISTED && line > lines[lines.length - 1]!.line) return;
  let at = lines.length;
  while (at > 0 && lines[at - 1]!.line > line) at--;
  list.splice(at, 0, entry);
  if (list.length > MAX_LISTED) list.pop();
}

/** The in_doubt purchases by amount ("305.00"), the first thing a line and a purchase must share. */
function byAmount(purchases: LedgerRow[]): Map<string, LedgerRow[]> {
  const map = new Map<string, LedgerRow[]>();
  for (const row of purchases) {
    if (row.amount === null) continue;
    const key = parseMoney(row.amount).toFixed(2);
    map.set(key, [...(map.get(key) ?? []), row]);
  }
  return map;
}

/**
 * Purchase ids, 8 bytes each: added in any order, then sealed (sorted) and looked up by binary search. Room for
 * `expected` from the start (a line names one purchase, as a rule), so a million ids are never copied to grow.
 */
class IdSet {
  private ids: Float64Array;
  private size = 0;

  constructor(expected: number) {
    this.ids = new Float64Array(Math.max(expected, 1024));
  }

  add(id: number): void {
    if (this.size === this.ids.length) {
      const grown = new Float64Array(this.ids.length * 2);
      grown.set(this.ids);
      this.ids = grown;
    }
    this.ids[this.size++] = id;
  }

  seal(): void {
    this.ids.subarray(0, this.size).sort();
  }

  /** The ids added more than once, with how many times, in id order (sealed first). */
  repeats(): Array<{ id: number; count: number }> {
    const found: Array<{ id: number; count: number }> = [];
    for (let i = 1; i < this.size; i++) {
      if (this.ids[i] !== this.ids[i - 1]) continue;
      const last = found[found.length - 1];
      if (last && last.id === this.ids[i]) last.count++;
      else found.push({ id: this.ids[i]!, count: 2 });
    }
    return found;
  }

  has(id: number): boolean {
    let [low, high] = [0, this.size - 1];
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const at = this.ids[mid]!;
      if (at === id) return true;
      if (at < id) low = mid + 1;
      else high = mid - 1;
    }
    return false;
  }
}

/** How far a reconciliation has got: statement lines matched, or (applying) resolvable purchases checked by verify. */
export interface SettleProgress {
  done: number;
  total: number;
}

export interface Applied {
  id: number;
  reference: string;
  /**
   * `reversed` (a succeeded purchase the statement lists as failed or reversed), `delivered_after_failure` (a failed
   * one it lists as successful): flagged once verify confirmed it, in its state (flagContradicted);
   * `earlier_attempt_delivered`: a line listing the transaction of the purchase's attempt before a person requeued it
   * as successful, flagged once verify confirmed it (flagEarlierAttemptDelivered).
   */
  result: "succeeded" | "failed" | ContradictionNote | typeof EARLIER_ATTEMPT_DELIVERED | "unchanged";
  why: string;
}

/**
 * Settles the resolvable purchases the verify answer of their reference proves: the answer is about that
 * purchase (reference, phone, amount, envelope) and final, and an in_doubt purchase is still the only one its line
 * can be. Then flags the final purchases the statement contradicts (a succeeded one listed as failed or reversed, a
 * failed one listed as successful), where the verify answer says so too (flagContradicted: they keep their state, for
 * a person), and the purchases whose attempt before a person requeued them it lists as successful, where the verify
 * answer of that attempt says so too (flagEarlierAttemptDelivered). Anything else is left as it is, with the reason.
 */
export async function applyStatement(
  db: Executor,
  reseller: ResellerClient,
  report: StatementReport,
  file: string,
  options: { onProgress?: (progress: SettleProgress) => void } = {},
): Promise<Applied[]> {
  const applied: Applied[] = [];
  const contradictions = contradicted(report);
  const deliveries = earlierDeliveries(report);
  const total = report.resolvable.length + contradictions.length + deliveries.length;
  for (const item of report.resolvable) {
    options.onProgress?.({ done: applied.length, total }); // one entry in applied per purchase checked
    applied.push(await applyLine(db, reseller, item, file));
  }
  for (const item of contradictions) {
    options.onProgress?.({ done: applied.length, total });
    applied.push(await flagLine(db, reseller, item, file));
  }
  for (const item of deliveries) {
    options.onProgress?.({ done: applied.length, total });
    applied.push(await flagEarlierLine(db, reseller, item, file));
  }
  options.onProgress?.({ done: applied.length, total });
  return applied;
}

/** A status difference whose line contradicts a final purchase, and how. */
export type Contradicted = StatementReport["statusDifferences"][number] & { contradiction: Contradiction };

/**
 * The status differences whose line contradicts a final purchase (a succeeded one listed as failed or reversed, a
 * failed one listed as successful): what `--apply` checks by verify and may flag.
 */
export function contradicted(report: StatementReport): Contradicted[] {
  return report.statusDifferences.flatMap((d) => {
    const contradiction = d.earlier ? undefined : contradictionOf(d.state, statementOutcome(d.statement));
    return contradiction ? [{ ...d, contradiction }] : [];
  });
}

/**
 * The status differences whose line lists the transaction of a purchase's attempt before a person requeued it as
 * successful: what `--apply` checks by verify and may flag `earlier_attempt_delivered`.
 */
export function earlierDeliveries(report: StatementReport): StatementReport["statusDifferences"] {
  return report.statusDifferences.filter(
    (d) => d.earlier && earlierDelivered(d.state, statementOutcome(d.statement)),
  );
}

/** An `unchanged` result for the purchase a line names, saying why. */
function unchangedFor(item: { id: number; reference: string }): (why: string) => Applied {
  return (why) => ({ id: item.id, reference: item.reference, result: "unchanged", why });
}

/** The purchase as it is now (with that reference, when given): its phone, amount charged or listed, state, note. */
async function purchaseNow(
  db: Executor,
  id: number,
  reference?: string,
): Promise<{ phone: string; amount: string | null; state: PurchaseState; note: string | null } | undefined> {
  const [row] = await rows<{
    phone: string;
    amount: string | null;
    state: PurchaseState;
    note: string | null;
  }>(
    db,
    sql`select phone, coalesce(charged_amount, amount)::text as amount, state, note from purchases
        where id = ${id}${reference === undefined ? sql`` : sql` and reference = ${reference}`}`,
  );
  return row;
}

/** Flags a final purchase its line contradicts, when its verify answer says so too. */
async function flagLine(
  db: Executor,
  reseller: ResellerClient,
  item: Contradicted,
  file: string,
): Promise<Applied> {
  const unchanged = unchangedFor(item);
  const { contradiction } = item;
  const row = await purchaseNow(db, item.id, item.reference);
  // Requeued (or pruned) since the report: the line is not about its current attempt.
  if (!row) return unchanged(`it no longer carries reference ${item.reference} (requeued or pruned)`);
  if (row.state !== contradiction.state) return unchanged(`it is ${row.state} now`);
  if (carriesFlag(row.note, contradiction.note))
    return unchanged(`it is flagged ${contradiction.note} already`);
  let verification: Verification;
  try {
    verification = await reseller.verifyTransaction(item.reference);
  } catch (error) {
    return unchanged(`verify ${item.reference} failed: ${(error as Error).message}`);
  }
  const purchase = { id: item.id, state: row.state, phone: row.phone, amount: row.amount ?? "0" };
  const unconfirmed = contradictionUnconfirmed(purchase, item.reference, verification, contradiction);
  if (unconfirmed !== undefined || !verification.found)
    return unchanged(`${unconfirmed?.why ?? "not confirmed"}: the line's ${item.statement} is not confirmed`);
  const flagged = await flagContradicted(
    db,
    contradiction.note,
    item.id,
    item.reference,
    `${file} lists reference ${item.reference} as ${item.statement}, and the provider's verify now says ${verification.rawStatus}, ${contradiction.consequence}`,
    { actor: STATEMENT_ACTOR, response: verification.raw },
  );
  return flagged
    ? {
        id: item.id,
        reference: item.reference,
        result: contradiction.note,
        why: `verify: ${verification.rawStatus}`,
      }
    : unchanged("it was flagged, or changed, meanwhile");
}

/**
 * Flags a purchase whose attempt before a person requeued it the line lists as successful, when the verify answer of
 * that attempt's reference says so too.
 */
async function flagEarlierLine(
  db: Executor,
  reseller: ResellerClient,
  item: StatementReport["statusDifferences"][number],
  file: string,
): Promise<Applied> {
  const unchanged = unchangedFor(item);
  const attempt = await earlierAttempt(db, item.reference);
  if (attempt?.id !== item.id)
    return unchanged(`reference ${item.reference} is no longer an earlier attempt of it (pruned)`);
  if (attempt.delivered) return unchanged("that attempt's delivery is flagged already");
  let verification: Verification;
  try {
    verification = await reseller.verifyTransaction(item.reference);
  } catch (error) {
    return unchanged(`verify ${item.reference} failed: ${(error as Error).message}`);
  }
  const unconfirmed = earlierDeliveryUnconfirmed(attempt, verification);
  if (unconfirmed !== undefined || !verification.found)
    return unchanged(`${unconfirmed?.why ?? "not confirmed"}: the line's ${item.statement} is not confirmed`);
  const flagged = await flagEarlierAttemptDelivered(
    db,
    item.id,
    item.reference,
    `${file} lists reference ${item.reference} (this purchase's attempt before a person requeued it, which ended ${attempt.state}) as ${item.statement}, and the provider's verify now says ${verification.rawStatus}: ${EARLIER_DELIVERY.consequence}`,
    { actor: STATEMENT_ACTOR, response: verification.raw },
  );
  return flagged
    ? {
        id: item.id,
        reference: item.reference,
        result: EARLIER_ATTEMPT_DELIVERED,
        why: `verify: ${verification.rawStatus}`,
      }
    : unchanged("it was flagged meanwhile");
}

async function applyLine(
  db: Executor,
  reseller: ResellerClient,
  item: StatementReport["resolvable"][number],
  file: string,
): Promise<Applied> {
  const unchanged = unchangedFor(item);
  const row = await purchaseNow(db, item.id);
  if (!row || (row.state !== "in_doubt" && row.state !== "unverified"))
    return unchanged(`it is ${row?.state ?? "gone"} now`);
  if (isForAPerson(row.note))
    return unchanged(
      `it carries a note for a person (${row.note!.slice(0, 300)}): a verify answer that agrees now does not outweigh it; a person settles it (purchases resolve)`,
    );
  let why = `${file} line ${item.line} lists reference ${item.reference} (${item.statement})`;
  // The match is made again as the report made it: with the phone as the line shows it (the purchase's full phone
  // would miss a rival that shares only the digits a masked line shows), before the verify read (no read for a line
  // that no longer matches) and after it, just before the settlement: a rival may have come while it was read.
  const evidence = lineEvidence({ ...item, date: new Date(item.date) }, file);
  const stillMatches = () => stillOnly(db, evidence, STATEMENT_MATCH_WINDOW_MS, item.id);
  if (row.state === "in_doubt") {
    const still = await stillMatches();
    if (!still.only) return unchanged(still.reason);
  }
  let verification: Verification;
  try {
    verification = await reseller.verifyTransaction(item.reference);
  } catch (error) {
    return unchanged(`verify ${item.reference} failed: ${(error as Error).message}`);
  }
  if (row.state === "in_doubt") {
    const still = await stillMatches();
    if (!still.only) return unchanged(still.reason);
    why = `${why}, and ${still.why}`;
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
