// `purchases reconcile --statement` as the readable formats show it (text, markdown, html): what the statement
// and the ledger disagree on, the in_doubt and unverified purchases it can resolve, and what --apply did.
// Every cell from the statement (references, statuses) is data: control characters and bidi marks are shown as
// escapes in every format, html included (a right-to-left override would reorder a reference on screen), and
// each renderer escapes its own markup.
import { maskPhonesIn } from "../log/mask.js";
import { parseMoney } from "../money.js";
import {
  type Applied,
  contradicted,
  earlierDeliveries,
  MAX_LISTED,
  type StatementReport,
} from "../purchases/statement.js";
import { type Block, type DocSection, left, type ReportDocument, right, table, text } from "./document.js";
import { counted, formatAmount, formatInstant } from "./format.js";
import { inertDocument } from "./inert-document.js";

export interface StatementView {
  /** The statement file as given to --statement. */
  file: string;
  /** What --apply did; undefined on a dry run. */
  applied: Applied[] | undefined;
  timeZone: string;
}

export function statementDocument(report: StatementReport, view: StatementView): ReportDocument {
  const at = (iso: string) => formatInstant(new Date(iso), view.timeZone);
  const amount = (value: string | null) => (value === null ? "-" : formatAmount(parseMoney(value)));
  const facts: ReportDocument["facts"] = [
    ["statement", view.file],
    [
      "period",
      report.period ? `${at(report.period.from)} → ${at(report.period.to)} (${view.timeZone})` : "-",
    ],
    [
      "lines",
      `${report.lines}, ${report.matched} on ledger purchases${report.totals.setAside > 0 ? `, ${report.totals.setAside} set aside` : ""}`,
    ],
    [
      "mode",
      view.applied ? "--apply: settled or flagged what a verify read proves" : "dry run: nothing was changed",
    ],
  ];
  const sections: DocSection[] = [
    section(
      "provider-only",
      "Provider debits with no ledger purchase",
      "Money that left the wallet without a ledger row.",
      table(
        "provider-only",
        [left("Line"), left("Reference"), right("Amount"), left("Date"), left("Status")],
        report.providerOnly.map((r) => [String(r.line), r.reference, amount(r.amount), at(r.date), r.status]),
      ),
      report.totals.providerOnly,
    ),
    section(
      "ledger-only",
      "Ledger purchases the provider does not list",
      undefined,
      table(
        "ledger-only",
        [right("ID"), left("Reference"), left("State"), right("Amount")],
        report.ledgerOnly.map((r) => [String(r.id), r.reference, r.state, amount(r.amount)]),
      ),
      report.totals.ledgerOnly,
    ),
    section(
      "amounts",
      "Amount differences",
      "The amount charged in the ledger against the statement's.",
      table(
        "amounts",
        [right("ID"), left("Reference"), right("Ledger"), right("Statement")],
        report.amountDifferences.map((r) => [
          String(r.id),
          r.reference,
          amount(r.ledger),
          amount(r.statement),
        ]),
      ),
      report.totals.amountDifferences,
    ),
    statusSection(report, view),
    resolvableSection(report, view),
  ];
  if (report.totals.setAside > 0)
    sections.splice(
      1,
      0,
      section(
        "set-aside",
        "Lines set aside, dated far from the statement's period",
        "Not matched against the ledger: a placeholder date (1970-01-01 on a transaction that never settled) or a date written wrong. A person should look at each.",
        table(
          "set-aside",
          [left("Line"), left("Reference"), right("Amount"), left("Date"), left("Status"), left("Why")],
          report.setAside.map((r) => [
            String(r.line),
            r.reference,
            amount(r.amount),
            at(r.date),
            r.status,
            r.reason,
          ]),
        ),
        report.totals.setAside,
      ),
    );
  if (report.totals.phoneDifferences > 0)
    sections.splice(
      sections.length - 1,
      0,
      section(
        "phones",
        "Phone differences",
        "The statement names the purchase's reference with another phone number: the provider says that transaction went elsewhere.",
        table(
          "phones",
          [right("ID"), left("Reference"), left("Ledger"), left("Statement")],
          report.phoneDifferences.map((r) => [String(r.id), r.reference, r.ledger, r.statement]),
        ),
        report.totals.phoneDifferences,
      ),
    );
  if (report.totals.duplicates > 0)
    sections.splice(
      sections.length - 1,
      0,
      section(
        "duplicates",
        "Ledger purchases the statement lists more than once",
        "One purchase debited more than once, or the export repeating a line: a person should look at each.",
        table(
          "duplicates",
          [right("ID"), left("Reference"), right("Lines")],
          report.duplicates.map((r) => [String(r.id), r.reference, String(r.lines)]),
        ),
        report.totals.duplicates,
      ),
    );
  if (report.totals.unmatched > 0)
    sections.push(
      section(
        "unmatched",
        "Lines an in_doubt purchase could be, but not the only one",
        "A verify answer proves a transaction, not which purchase made it: a person matches these.",
        table(
          "unmatched",
          [right("Line"), left("Reference"), left("Why")],
          report.unmatched.map((r) => [String(r.line), r.reference, maskPhonesIn(r.why)]),
        ),
        report.totals.unmatched,
      ),
    );
  if (view.applied) sections.push(appliedSection(view.applied));
  return inertDocument({
    title: `topsync purchases reconcile: ${view.file}`,
    facts,
    status: status(report, view),
    sections,
  });
}

function section(
  id: string,
  title: string,
  intro: string | undefined,
  rows: Block,
  total?: number,
): DocSection {
  const empty = rows.kind === "table" && rows.rows.length === 0;
  const blocks: Block[] = empty ? [text("None.")] : [...(intro ? [text(intro)] : []), rows];
  if (total !== undefined && total > MAX_LISTED)
    blocks.push(
      text(`${total} in all; the report lists the first ${MAX_LISTED} (in --format json too).`, "note"),
    );
  return { id, title, blocks };
}

function resolvableSection(report: StatementReport, view: StatementView): DocSection {
  const found = section(
    "resolvable",
    "In_doubt or unverified purchases the statement can resolve",
    "Each is the only purchase its line can be, and that line the only one that can be it.",
    table(
      "resolvable",
      [right("ID"), left("State"), right("Line"), left("Reference"), left("Statement")],
      report.resolvable.map((r) => [String(r.id), r.state, String(r.line), r.reference, r.statement]),
    ),
    report.totals.resolvable,
  );
  if (!view.applied && report.resolvable.length > 0)
    found.blocks.push(
      text("Dry run: --apply settles these when a verify read of each reference proves it.", "note"),
    );
  return found;
}

/** Status differences; one whose line contradicts a final purchase is one `--apply` checks by verify. */
function statusSection(report: StatementReport, view: StatementView): DocSection {
  const found = section(
    "statuses",
    "Status differences",
    undefined,
    table(
      "statuses",
      [right("ID"), left("Reference"), left("Ledger"), left("Statement")],
      report.statusDifferences.map((r) => [
        String(r.id),
        r.reference,
        r.earlier ? `${r.state} (an attempt before a requeue)` : r.state,
        r.statement,
      ]),
    ),
    report.totals.statusDifferences,
  );
  if (!view.applied && contradicted(report).length > 0)
    found.blocks.push(
      text(
        "Dry run: --apply flags a succeeded purchase listed as failed or reversed (still succeeded, with a `reversed` note), and a failed purchase listed as successful (still failed, with a `delivered_after_failure` note: the provider charged for it, and its charge counts against the daily budget), for a person, when a verify read of its reference says so too.",
        "note",
      ),
    );
  if (!view.applied && earlierDeliveries(report).length > 0)
    found.blocks.push(
      text(
        "Dry run: --apply flags a purchase whose attempt before a person requeued it is listed as successful (in its current state, with an `earlier_attempt_delivered` note: the provider charged for that attempt, its charge counts against the daily budget, and the customer may have the data twice), for a person, when a verify read of that attempt's reference says so too.",
        "note",
      ),
    );
  return found;
}

function appliedSection(applied: Applied[]): DocSection {
  return section(
    "applied",
    "Applied",
    "Settled only where the verify answer of the reference names the purchase's phone and amount and is final; flagged `reversed` where a succeeded purchase's verify answer says failed or reversed, `delivered_after_failure` where a failed purchase's says success, `earlier_attempt_delivered` where the verify answer of a purchase's attempt before a person requeued it says success.",
    table(
      "applied",
      [right("ID"), left("Reference"), left("Result"), left("Why")],
      applied.map((r) => [String(r.id), r.reference, r.result, maskPhonesIn(r.why)]),
    ),
  );
}

function status(report: StatementReport, view: StatementView): ReportDocument["status"] {
  const differences = [
    [
      report.totals.providerOnly,
      "provider debit with no ledger purchase",
      "provider debits with no ledger purchase",
    ],
    [
      report.totals.ledgerOnly,
      "ledger purchase the provider does not list",
      "ledger purchases the provider does not list",
    ],
    [report.totals.amountDifferences, "amount difference", "amount differences"],
    [report.totals.statusDifferences, "status difference", "status differences"],
    [report.totals.phoneDifferences, "phone difference", "phone differences"],
    [
      report.totals.duplicates,
      "ledger purchase the statement lists more than once",
      "ledger purchases the statement lists more than once",
    ],
    [report.totals.setAside, "line set aside", "lines set aside"],
  ] as const;
  const found = differences.filter(([n]) => n > 0).map(([n, one, many]) => counted(n, one, many));
  const settled = view.applied?.filter((a) => a.result === "succeeded" || a.result === "failed").length;
  const flagged = (result: Applied["result"]) => view.applied?.filter((a) => a.result === result).length ?? 0;
  const reversed = flagged("reversed");
  const delivered = flagged("delivered_after_failure");
  const earlier = flagged("earlier_attempt_delivered");
  const resolvable =
    (report.resolvable.length === 0
      ? ""
      : settled === undefined
        ? ` ${counted(report.resolvable.length, "purchase")} the statement can resolve (dry run).`
        : ` ${settled} of ${counted(report.resolvable.length, "resolvable purchase")} settled.`) +
    (reversed > 0 ? ` ${counted(reversed, "succeeded purchase")} flagged reversed.` : "") +
    (delivered > 0 ? ` ${counted(delivered, "failed purchase")} flagged delivered_after_failure.` : "") +
    (earlier > 0 ? ` ${counted(earlier, "requeued purchase")} flagged earlier_attempt_delivered.` : "");
  if (found.length > 0)
    return { tone: "warning", text: `A person should look at: ${found.join(", ")}.${resolvable}` };
  if (report.lines === 0) return { tone: "note", text: "The statement has no lines." };
  return {
    tone: report.resolvable.length > 0 ? "note" : "ok",
    text: `The statement and the ledger agree.${resolvable}`,
  };
}
