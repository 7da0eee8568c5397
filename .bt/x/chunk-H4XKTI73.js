import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  stringify
} from "./chunk-R4UDDDHW.js";
import {
  openLedger
} from "./chunk-JK5CIMQN.js";
import {
  write
} from "./chunk-NOWJV5E2.js";
import {
  maskPhone,
  maskPhonesDeep,
  maskPhonesIn
} from "./chunk-CTB3ORUE.js";
import {
  renderJson,
  renderTable
} from "./chunk-PKFIHURA.js";
import {
  csvCell,
  inert
} from "./chunk-IIT3DDOC.js";
import {
  cancelByPerson,
  otherPurchaseWithReference,
  requeueByPerson,
  resolveByPerson
} from "./chunk-EBZNZK5S.js";
import {
  PURCHASE_STATES,
  providerNotifications,
  purchaseEvents,
  purchases
} from "./chunk-BH4POYA2.js";
import {
  parseDuration
} from "./chunk-4DGXMM26.js";
import {
  DataError,
  UsageError
} from "./chunk-3SYTADOT.js";
import {
  and,
  desc,
  eq,
  gte,
  or
} from "./chunk-FBKOPLBK.js";

// dist/calendar.js
var DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;
function parseCalendarInstant(text) {
  const match = DATE_TIME.exec(text.trim());
  if (!match)
    return void 0;
  const [year, month, day, hour = 0, minute = 0, second = 0] = match.slice(1, 7).map((part) => Number(part ?? 0));
  const calendar = new Date(Date.UTC(year, month - 1, day));
  if (calendar.getUTCFullYear() !== year || calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59)
    return void 0;
  const instant = new Date(text.trim());
  return Number.isNaN(instant.getTime()) ? void 0 : instant;
}

// dist/purchases/ledger-read.js
function listPurchases(db, filter, limit) {
  return db.select().from(purchases).where(and(filter.state ? eq(purchases.state, filter.state) : void 0, filter.since ? gte(purchases.created_at, filter.since) : void 0, filter.job ? eq(purchases.job_name, filter.job) : void 0)).orderBy(desc(purchases.id)).limit(limit);
}
async function findPurchase(db, target) {
  const id = /^\d+$/.test(target) ? Number(target) : Number.NaN;
  const byId = Number.isSafeInteger(id) ? eq(purchases.id, id) : eq(purchases.reference, target);
  const [row] = await db.select().from(purchases).where(byId).limit(1);
  if (!row)
    throw new DataError(`no purchase with id or reference "${inert(target)}"`, "PURCHASE_NOT_FOUND");
  return row;
}
async function readPurchaseHistory(db, target) {
  const row = await findPurchase(db, target);
  const events = await db.select().from(purchaseEvents).where(eq(purchaseEvents.purchase_id, row.id)).orderBy(purchaseEvents.id);
  return { row, events };
}
function readPurchaseNotifications(db, row) {
  const tied = eq(providerNotifications.purchase_id, row.id);
  return db.select({
    id: providerNotifications.id,
    received_at: providerNotifications.received_at,
    status: providerNotifications.status,
    reference: providerNotifications.reference,
    amount: providerNotifications.amount,
    outcome: providerNotifications.outcome,
    reason: providerNotifications.reason
  }).from(providerNotifications).where(row.reference ? or(tied, eq(providerNotifications.reference, row.reference)) : tied).orderBy(providerNotifications.id).limit(100);
}

// dist/cli/purchases-ledger.js
async function purchasesListCommand(ctx, flags) {
  const filters = {
    state: flags.state ? parseState(flags.state) : void 0,
    since: flags.since ? parseSince(flags.since) : void 0,
    job: flags.job
  };
  const limit = Number(flags.limit);
  if (!Number.isInteger(limit) || limit < 1)
    throw new UsageError(`--limit must be a positive whole number, got "${flags.limit}"`);
  const { db } = await openLedger(ctx);
  const found = await listPurchases(db, filters, limit);
  const shown = found.map((row) => view(row, flags.showPhone === true));
  if (ctx.globals.json)
    return write(renderJson(shown));
  if (flags.csv)
    return write(stringify(shown, { header: true, cast: { string: csvCell } }));
  write(renderTable(shown, [
    { header: "ID", value: (r) => String(r.id), align: "right" },
    { header: "STATE", value: (r) => r.state },
    { header: "SOURCE", value: (r) => r.job ?? r.source },
    { header: "PHONE", value: (r) => r.phone },
    { header: "PLAN", value: (r) => r.plan ?? "-" },
    { header: "AMOUNT", value: (r) => r.amount ?? "-", align: "right" },
    { header: "REFERENCE", value: (r) => r.reference ?? "-" },
    { header: "UPDATED", value: (r) => r.updated_at }
  ]));
  write(`${shown.length} purchases${shown.length === limit ? ` (the newest ${limit}; --limit for more)` : ""}
`);
}
async function purchasesShowCommand(ctx, target, showPhone) {
  const { db } = await openLedger(ctx);
  const { row, events } = await readPurchaseHistory(db, target);
  const text = (value) => shownText(value, row.phone, showPhone);
  const notifications = (await readPurchaseNotifications(db, row)).map((n) => ({
    ...n,
    received_at: n.received_at.toISOString(),
    reason: n.reason === null ? null : text(n.reason)
  }));
  const shownEvents = events.map((e) => ({
    at: e.at.toISOString(),
    actor: e.actor,
    from: e.from_state,
    to: e.to_state,
    reason: e.reason === null ? null : text(e.reason),
    response: showPhone ? e.response : maskPhonesDeep(e.response)
  }));
  const provider = [row.provider_status, row.provider_message].filter(Boolean).join(": ");
  const v = view(row, showPhone);
  if (ctx.globals.json)
    return write(renderJson({
      ...v,
      provider_message: row.provider_message === null ? null : text(row.provider_message),
      charged_amount: row.charged_amount,
      note: row.note === null ? null : text(row.note),
      events: shownEvents,
      notifications
    }));
  const lines = [
    ["id", String(v.id)],
    ["state", v.state],
    ["request key", text(row.request_key)],
    ["source", v.job ? `job ${v.job} (fire ${v.fire_time})` : v.source],
    ["phone", `${v.phone}${row.ported ? " (ported)" : ""}`],
    ["network", row.network_id ? `${row.network} (${row.network_id})` : row.network],
    ["plan", v.plan],
    ["amount", charged(row)],
    ["note", row.note === null ? null : text(row.note)],
    ["reference", v.reference],
    ["provider", text(provider)],
    ["refund", row.refund_amount],
    ["reason", v.reason],
    ["attempts", `${row.attempts} of ${row.max_attempts}`],
    ["created", v.created_at],
    ["updated", v.updated_at]
  ];
  write(lines.filter(([, value]) => value).map(([k, value]) => `${k.padEnd(13)}${inert(value ?? "")}`).join("\n") + "\n\nevents:\n");
  write(renderTable(shownEvents, [
    { header: "AT", value: (e) => e.at },
    { header: "ACTOR", value: (e) => e.actor },
    { header: "FROM", value: (e) => e.from ?? "-" },
    { header: "TO", value: (e) => e.to },
    { header: "WHY", value: (e) => e.reason ?? "" }
  ]));
  if (notifications.length === 0)
    return;
  write("\nprovider notifications:\n");
  write(renderTable(notifications, [
    { header: "ID", value: (n) => String(n.id) },
    { header: "RECEIVED", value: (n) => n.received_at },
    { header: "STATUS", value: (n) => n.status ?? "-" },
    { header: "REFERENCE", value: (n) => n.reference ?? "-" },
    { header: "OUTCOME", value: (n) => n.outcome },
    { header: "WHY", value: (n) => n.reason ?? "" }
  ]));
}
async function purchasesResolveCommand(ctx, target, flags) {
  if (flags.as !== "succeeded" && flags.as !== "failed")
    throw new UsageError(`--as must be succeeded or failed, got "${flags.as}"`);
  if (!flags.note?.trim())
    throw new UsageError(`--note "why" is required: it goes into the purchase's history`);
  const { db } = await openLedger(ctx);
  const row = await findPurchase(db, target);
  const reference = flags.reference?.trim();
  const holder = reference ? await otherPurchaseWithReference(db, reference, row.id) : void 0;
  if (holder)
    throw new UsageError(`--reference ${inert(reference)} is already on purchase ${holder.id} (${holder.state}); one provider reference is one purchase`, "REFERENCE_TAKEN");
  const moved = await resolveByPerson(db, row.id, flags.as, { reference: flags.reference }, {
    actor: `person:${process.env.USER ?? "operator"}`,
    reason: `resolved by hand as ${flags.as}: ${flags.note.trim()}`
  });
  if (!moved)
    throw wrongState(row, "resolve", ["in_doubt", "unverified"]);
  write(`purchase ${row.id}: ${moved.from_state} \u2192 ${flags.as}
`);
}
async function purchasesRequeueCommand(ctx, target) {
  const { db } = await openLedger(ctx);
  const row = await findPurchase(db, target);
  const moved = await requeueByPerson(db, row.id, {
    actor: `person:${process.env.USER ?? "operator"}`,
    reason: "requeued by hand"
  });
  if (!moved)
    throw wrongState(row, "requeue", ["failed", "rejected"]);
  write(`purchase ${row.id}: ${moved.from_state} \u2192 queued (the next purchases run buys it)
`);
}
async function purchasesCancelCommand(ctx, target) {
  const { db } = await openLedger(ctx);
  const row = await findPurchase(db, target);
  const moved = await cancelByPerson(db, row.id, {
    actor: `person:${process.env.USER ?? "operator"}`,
    reason: "cancelled by hand"
  });
  if (!moved)
    throw wrongState(row, "cancel", ["queued"]);
  write(`purchase ${row.id}: queued \u2192 cancelled
`);
}
function wrongState(row, action, allowed) {
  return new UsageError(`cannot ${action} purchase ${row.id}: it is ${row.state}, and only ${allowed.join(" or ")} purchases can be ${action === "cancel" ? "cancelled" : `${action}d`}`, "WRONG_STATE");
}
function parseState(text) {
  if (PURCHASE_STATES.includes(text))
    return text;
  throw new UsageError(`--state must be one of ${PURCHASE_STATES.join(", ")}; got "${text}"`);
}
function parseSince(text) {
  try {
    return new Date(Date.now() - parseDuration(text));
  } catch {
    const date = parseCalendarInstant(text);
    if (date)
      return date;
    throw new UsageError(`--since must be a duration like 7d or 24h, or a real date like 2026-11-01; got "${text}"`);
  }
}
function shownText(text, phone, showPhone) {
  return showPhone ? text : maskPhonesIn(text.split(phone).join(maskPhone(phone)));
}
function view(row, showPhone) {
  return {
    id: row.id,
    state: row.state,
    source: row.source,
    job: row.job_name,
    fire_time: row.fire_time?.toISOString() ?? null,
    phone: showPhone ? row.phone : maskPhone(row.phone),
    network: row.network,
    plan: row.plan_id ? `${row.plan_id}${row.plan_name ? ` ${row.plan_name}` : ""}` : null,
    amount: row.amount,
    reference: row.reference,
    reason: row.reason === null ? null : shownText(row.reason, row.phone, showPhone),
    provider_status: row.provider_status,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString()
  };
}
function charged(row) {
  if (!row.charged_amount || row.charged_amount === row.amount)
    return row.amount;
  return `${row.amount ?? "-"} listed, ${row.charged_amount} charged`;
}

export {
  purchasesListCommand,
  purchasesShowCommand,
  purchasesResolveCommand,
  purchasesRequeueCommand,
  purchasesCancelCommand,
  parseSince
};
