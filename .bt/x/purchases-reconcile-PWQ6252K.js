import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  sameVisibleDigits,
  verifyDisagreements
} from "./chunk-2ULZMUG3.js";
import "./chunk-NFUL76TY.js";
import {
  openLedger
} from "./chunk-JK5CIMQN.js";
import "./chunk-LFLOYXGR.js";
import {
  write
} from "./chunk-NOWJV5E2.js";
import {
  renderJson,
  renderTable
} from "./chunk-PKFIHURA.js";
import "./chunk-IIT3DDOC.js";
import {
  transform
} from "./chunk-VGVPC3PQ.js";
import "./chunk-VAUR3CNU.js";
import "./chunk-WW7OP26R.js";
import {
  otherPurchaseWithReference,
  settleInDoubtByProof
} from "./chunk-EBZNZK5S.js";
import {
  rows
} from "./chunk-BH4POYA2.js";
import {
  DataError,
  UsageError
} from "./chunk-3SYTADOT.js";
import {
  isMoneyText,
  parseMoney
} from "./chunk-57HFVDAX.js";
import "./chunk-TULZGMTI.js";
import {
  sql
} from "./chunk-FBKOPLBK.js";
import "./chunk-V4RWK56N.js";

// dist/cli/purchases-reconcile.js
import { readFileSync } from "node:fs";

// node_modules/csv-parse/lib/sync.js
var parse = function(data, opts = {}) {
  if (typeof data === "string") {
    data = Buffer.from(data);
  }
  const records = opts && opts.objname ? /* @__PURE__ */ Object.create(null) : [];
  const parser = transform(opts);
  const push = (record) => {
    if (parser.options.objname === void 0) records.push(record);
    else {
      records[record[0]] = record[1];
    }
  };
  const close = () => {
  };
  const error = parser.parse(data, true, push, close);
  if (error !== void 0) throw error;
  return records;
};

// dist/purchases/statement.js
var STATEMENT_FIELDS = ["reference", "phone", "amount", "date", "status"];
var DEFAULT_COLUMNS = {
  reference: "reference",
  phone: "phone",
  amount: "amount",
  date: "date",
  status: "status"
};
var STATEMENT_ACTOR = "statement+verify";
function parseStatement(text, file, columns) {
  let records;
  try {
    records = parse(text, { bom: true, skip_empty_lines: true, relax_column_count: true, trim: true });
  } catch (error) {
    throw new DataError(`${file}: not a CSV file: ${error.message}`);
  }
  const [header, ...body] = records;
  if (!header)
    throw new DataError(`${file}: empty statement (no header line)`);
  const index = {};
  for (const field of STATEMENT_FIELDS) {
    const at = header.findIndex((name) => name.toLowerCase() === columns[field].toLowerCase());
    if (at === -1)
      throw new DataError(`${file}: no column "${columns[field]}" for ${field} (columns: ${header.join(", ")}); map it with --columns ${field}=NAME`);
    index[field] = at;
  }
  return body.map((record, i) => {
    const line = i + 2;
    const cell = (field) => (record[index[field]] ?? "").trim();
    const where = (field) => `${file}:${line}: column "${columns[field]}"`;
    const reference = cell("reference");
    if (!reference)
      throw new DataError(`${where("reference")} is empty`);
    const amountText = cell("amount").replace(/[₦,\s]/g, "").replace(/^N(?=\d)/, "");
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
      status: cell("status").toLowerCase()
    };
  });
}
function statementOutcome(status) {
  if (/^(success|successful|succeeded|delivered|completed)$/.test(status))
    return "success";
  if (/^(failed|failure|reversed|refunded|declined)$/.test(status))
    return "failed";
  return "pending";
}
var SLACK_MS = 864e5;
async function reconcileStatement(db, lines) {
  const report = {
    period: null,
    lines: lines.length,
    matched: 0,
    providerOnly: [],
    ledgerOnly: [],
    amountDifferences: [],
    statusDifferences: [],
    resolvable: []
  };
  if (lines.length === 0)
    return report;
  const times = lines.map((l) => l.date.getTime());
  const from = new Date(Math.min(...times));
  const to = new Date(Math.max(...times));
  report.period = { from: from.toISOString(), to: to.toISOString() };
  const ledger = await rows(
    db,
    // A purchase settled by proof from in_doubt has no submitted_at: its creation stands in for it.
    sql`select id, state, reference, phone, coalesce(charged_amount, amount)::text as amount,
          coalesce(submitted_at, created_at) as at from purchases
        where (reference is not null and coalesce(submitted_at, created_at)
                 between ${new Date(from.getTime() - SLACK_MS).toISOString()} and ${new Date(to.getTime() + SLACK_MS).toISOString()})
           or reference in (select jsonb_array_elements_text(${JSON.stringify(lines.map((l) => l.reference))}::jsonb))
           or (state in ('in_doubt', 'unverified') and updated_at >= ${new Date(from.getTime() - SLACK_MS).toISOString()})`
  );
  const byReference = new Map(ledger.filter((r) => r.reference).map((r) => [r.reference, r]));
  const listed = new Set(lines.map((l) => l.reference));
  const candidates = /* @__PURE__ */ new Map();
  const lineCandidates = /* @__PURE__ */ new Map();
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
          statement: line.amount
        });
      const outcome = statementOutcome(line.status);
      const differs = outcome === "success" && own.state === "failed" || outcome === "failed" && own.state === "succeeded";
      if (differs)
        report.statusDifferences.push({
          id,
          reference: line.reference,
          state: own.state,
          statement: line.status
        });
      if (own.state === "unverified" && outcome !== "pending")
        report.resolvable.push({
          id,
          state: own.state,
          line: line.line,
          reference: line.reference,
          statement: line.status
        });
      continue;
    }
    const could = ledger.filter((r) => r.state === "in_doubt" && line.phone !== "" && sameVisibleDigits(line.phone, r.phone) && r.amount !== null && parseMoney(r.amount).eq(parseMoney(line.amount)));
    lineCandidates.set(line.line, could);
    for (const r of could)
      candidates.set(Number(r.id), [...candidates.get(Number(r.id)) ?? [], line.line]);
  }
  for (const line of lines) {
    const could = lineCandidates.get(line.line);
    if (!could)
      continue;
    const only = could.length === 1 ? could[0] : void 0;
    if (only && candidates.get(Number(only.id))?.length === 1 && statementOutcome(line.status) !== "pending")
      report.resolvable.push({
        id: Number(only.id),
        state: only.state,
        line: line.line,
        reference: line.reference,
        statement: line.status
      });
    else
      report.providerOnly.push({
        line: line.line,
        reference: line.reference,
        amount: line.amount,
        date: line.date.toISOString(),
        status: line.status
      });
  }
  for (const row of ledger) {
    if (!row.reference || listed.has(row.reference))
      continue;
    const at = new Date(row.at).getTime();
    if (at < from.getTime() - SLACK_MS || at > to.getTime() + SLACK_MS)
      continue;
    report.ledgerOnly.push({
      id: Number(row.id),
      reference: row.reference,
      state: row.state,
      amount: row.amount
    });
  }
  return report;
}
async function applyStatement(db, reseller, report, file) {
  const applied = [];
  for (const item of report.resolvable) {
    const unchanged = (why) => applied.push({ id: item.id, reference: item.reference, result: "unchanged", why });
    const [row] = await rows(db, sql`select phone, coalesce(charged_amount, amount)::text as amount, state from purchases where id = ${item.id}`);
    if (!row || row.state !== "in_doubt" && row.state !== "unverified") {
      unchanged(`it is ${row?.state ?? "gone"} now`);
      continue;
    }
    let verification;
    try {
      verification = await reseller.verifyTransaction(item.reference);
    } catch (error) {
      unchanged(`verify ${item.reference} failed: ${error.message}`);
      continue;
    }
    if (!verification.found) {
      unchanged(`the provider's verify does not know ${item.reference}`);
      continue;
    }
    const problems = verifyDisagreements({ reference: item.reference, phone: row.phone, amount: row.amount ?? "0" }, verification);
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
    const moved = await settleInDoubtByProof(db, item.id, to, {
      reference: item.reference,
      providerStatus: verification.rawStatus,
      message: `the provider reports ${verification.rawStatus}`,
      refund: to === "failed" ? verification.transaction.amount?.toFixed(2) ?? null : null
    }, {
      actor: STATEMENT_ACTOR,
      reason: `settled by proof: ${file} line ${item.line} lists reference ${item.reference} (${item.statement}), and its verify answer (${verification.rawStatus}) names this purchase's phone and amount`,
      response: verification.raw
    }, [row.state]);
    if (moved)
      applied.push({
        id: item.id,
        reference: item.reference,
        result: to,
        why: `verify: ${verification.rawStatus}`
      });
    else
      unchanged("it moved meanwhile");
  }
  return applied;
}

// dist/cli/purchases-reconcile.js
function parseColumns(text) {
  const columns = { ...DEFAULT_COLUMNS };
  if (!text)
    return columns;
  for (const pair of text.split(",")) {
    const [field, name] = pair.split("=").map((part) => part.trim());
    if (!STATEMENT_FIELDS.includes(field) || !name)
      throw new UsageError(`--columns takes field=COLUMN pairs for ${STATEMENT_FIELDS.join(", ")}, such as reference=Ref,amount=Amount; got "${pair}"`);
    columns[field] = name;
  }
  return columns;
}
async function purchasesReconcileCommand(ctx, flags) {
  const columns = parseColumns(flags.columns);
  let text;
  try {
    text = readFileSync(flags.statement, "utf8");
  } catch (error) {
    throw new UsageError(`--statement ${flags.statement}: cannot read it: ${error.code ?? error.message}`);
  }
  const lines = parseStatement(text, flags.statement, columns);
  const { db } = await openLedger(ctx);
  const report = await reconcileStatement(db, lines);
  const applied = flags.apply ? await applyStatement(db, ctx.reseller(), report, flags.statement) : void 0;
  if (ctx.globals.json)
    return write(renderJson({ ...report, dry_run: !flags.apply, applied: applied ?? [] }));
  const period = report.period ? `${report.period.from} \u2026 ${report.period.to}` : "empty";
  write(`statement ${flags.statement}: ${report.lines} lines (${period}), ${report.matched} on ledger purchases

provider debits with no ledger purchase: ${report.providerOnly.length}
`);
  const table = (items, columns2) => {
    if (items.length > 0)
      write(renderTable(items, columns2));
  };
  table(report.providerOnly, [
    { header: "LINE", value: (r) => String(r.line) },
    { header: "REFERENCE", value: (r) => r.reference },
    { header: "AMOUNT", value: (r) => r.amount },
    { header: "DATE", value: (r) => r.date },
    { header: "STATUS", value: (r) => r.status }
  ]);
  write(`
ledger purchases the provider does not list: ${report.ledgerOnly.length}
`);
  table(report.ledgerOnly, [
    { header: "ID", value: (r) => String(r.id) },
    { header: "REFERENCE", value: (r) => r.reference },
    { header: "STATE", value: (r) => r.state },
    { header: "AMOUNT", value: (r) => r.amount ?? "-" }
  ]);
  write(`
amount differences: ${report.amountDifferences.length}
`);
  table(report.amountDifferences, [
    { header: "ID", value: (r) => String(r.id) },
    { header: "REFERENCE", value: (r) => r.reference },
    { header: "LEDGER", value: (r) => r.ledger ?? "-" },
    { header: "STATEMENT", value: (r) => r.statement }
  ]);
  write(`
status differences: ${report.statusDifferences.length}
`);
  table(report.statusDifferences, [
    { header: "ID", value: (r) => String(r.id) },
    { header: "REFERENCE", value: (r) => r.reference },
    { header: "LEDGER", value: (r) => r.state },
    { header: "STATEMENT", value: (r) => r.statement }
  ]);
  write(`
in_doubt or unverified purchases the statement can resolve: ${report.resolvable.length}
`);
  table(report.resolvable, [
    { header: "ID", value: (r) => String(r.id) },
    { header: "STATE", value: (r) => r.state },
    { header: "LINE", value: (r) => String(r.line) },
    { header: "REFERENCE", value: (r) => r.reference },
    { header: "STATEMENT", value: (r) => r.statement }
  ]);
  if (!applied) {
    if (report.resolvable.length > 0)
      write("\ndry run: --apply settles these when a verify read of each reference proves it\n");
    return;
  }
  write(`
applied:
`);
  table(applied, [
    { header: "ID", value: (r) => String(r.id) },
    { header: "REFERENCE", value: (r) => r.reference },
    { header: "RESULT", value: (r) => r.result },
    { header: "WHY", value: (r) => r.why }
  ]);
}
export {
  parseColumns,
  purchasesReconcileCommand
};
