// `topsync purchases list/show/resolve/requeue/cancel`: inspect and settle the ledger.
import { stringify } from "csv-stringify/sync";
import type { Database } from "../db/client.js";
import { PURCHASE_STATES, type PurchaseState } from "../db/schema.js";
import { parseDuration } from "../duration.js";
import { UsageError } from "../errors.js";
import { maskPhone, maskPhonesDeep, maskPhonesIn } from "../log/mask.js";
import { requeueAsPerson, resolveAsPerson } from "../purchases/by-person.js";
import { CANCELLABLE_STATES, type PurchaseRow } from "../purchases/ledger.js";
import {
  findPurchase,
  type ListFilter,
  listPurchases,
  readPurchaseHistory,
  readPurchaseNotifications,
} from "../purchases/ledger-read.js";
import { NOTIFICATION_ACTOR } from "../purchases/notifications.js";
import { STATEMENT_ACTOR } from "../purchases/statement.js";
import { csvCell, inert } from "../text/inert.js";
import { zonedInstant } from "../time/zoned.js";
import type { CommandContext } from "./context.js";
import { openLedger } from "./database.js";
import { parseLimit } from "./limit.js";
import { renderJson, renderTable, write } from "./output.js";
import { personText } from "./person-text.js";

export interface ListFlags {
  state?: string;
  since?: string;
  job?: string;
  limit: string;
  csv?: boolean;
  showPhone?: boolean;
}

export async function purchasesListCommand(
  ctx: CommandContext,
  flags: ListFlags,
  /** A database the caller already has open (the demo). */
  database?: Database,
): Promise<void> {
  const filters: ListFilter = {
    state: flags.state ? parseState(flags.state) : undefined,
    since: flags.since ? parseSince(flags.since, ctx.config.timezone) : undefined,
    job: flags.job,
  };
  const limit = parseLimit(flags.limit);
  const { db } = database ?? (await openLedger(ctx));
  const found = await listPurchases(db, filters, limit);
  const shown = found.map((row) => view(row, flags.showPhone === true));
  if (ctx.globals.json) return write(renderJson(shown));
  if (flags.csv) return write(stringify(shown, { header: true, cast: { string: csvCell } }));
  write(
    renderTable(shown, [
      { header: "ID", value: (r) => String(r.id), align: "right" },
      { header: "STATE", value: (r) => r.state },
      { header: "SOURCE", value: (r) => r.job ?? r.source },
      { header: "PHONE", value: (r) => r.phone },
      { header: "PLAN", value: (r) => r.plan ?? "-" },
      { header: "AMOUNT", value: (r) => r.amount ?? "-", align: "right" },
      { header: "REFERENCE", value: (r) => r.reference ?? "-" },
      { header: "UPDATED", value: (r) => r.updated_at },
    ]),
  );
  write(
    `${shown.length} purchases${shown.length === limit ? ` (the newest ${limit}; --limit for more)` : ""}\n`,
  );
}

export async function purchasesShowCommand(
  ctx: CommandContext,
  target: string,
  showPhone: boolean,
  /** A database the caller already has open (the demo). */
  database?: Database,
): Promise<void> {
  const { db } = database ?? (await openLedger(ctx));
  const { row, events } = await readPurchaseHistory(db, target);
  const text = (value: string) => shownText(value, row.phone, showPhone);
  const notifications = (await readPurchaseNotifications(db, row)).map((n) => ({
    ...n,
    received_at: n.received_at.toISOString(),
    reason: n.reason === null ? null : text(n.reason),
  }));
  const shownEvents = events.map((e) => ({
    at: e.at.toISOString(),
    actor: e.actor,
    from: e.from_state,
    to: e.to_state,
    reason: e.reason === null ? null : text(e.reason),
    response: showPhone ? e.response : maskPhonesDeep(e.response),
  }));
  const provider = [row.provider_status, row.provider_message].filter(Boolean).join(": ");
  const v = view(row, showPhone);
  const proof = shownEvents.findLast(
    (e) => (e.actor === NOTIFICATION_ACTOR || e.actor === STATEMENT_ACTOR) && e.from === "in_doubt",
  );
  if (ctx.globals.json)
    return write(
      renderJson({
        ...v,
        provider_message: row.provider_message === null ? null : text(row.provider_message),
        charged_amount: row.charged_amount,
        note: row.note === null ? null : text(row.note),
        proof: proof ? { at: proof.at, actor: proof.actor, reason: proof.reason } : null,
        events: shownEvents,
        notifications,
      }),
    );
  const lines: Array<[string, string | null | undefined]> = [
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
    // A reference attached by proof: the evidence, and why no other purchase could own it.
    ["proof", proof?.reason],
    ["provider", text(provider)],
    ["refund", row.refund_amount],
    ["reason", v.reason],
    ["attempts", `${row.attempts} of ${row.max_attempts}`],
    ["created", v.created_at],
    ["updated", v.updated_at],
  ];
  write(
    lines
      .filter(([, value]) => value)
      .map(([k, value]) => `${k.padEnd(13)}${inert(value ?? "")}`)
      .join("\n") + "\n\nevents:\n",
  );
  write(
    renderTable(shownEvents, [
      { header: "AT", value: (e) => e.at },
      { header: "ACTOR", value: (e) => e.actor },
      { header: "FROM", value: (e) => e.from ?? "-" },
      { header: "TO", value: (e) => e.to },
      { header: "WHY", value: (e) => e.reason ?? "" },
    ]),
  );
  if (notifications.length === 0) return;
  write("\nprovider notifications:\n");
  write(
    renderTable(notifications, [
      { header: "ID", value: (n) => String(n.id) },
      { header: "RECEIVED", value: (n) => n.received_at },
      { header: "STATUS", value: (n) => n.status ?? "-" },
      { header: "REFERENCE", value: (n) => n.reference ?? "-" },
      { header: "OUTCOME", value: (n) => n.outcome },
      { header: "WHY", value: (n) => n.reason ?? "" },
    ]),
  );
}

export interface ResolveFlags {
  as: string;
  reference?: string;
  note: string;
}

export async function purchasesResolveCommand(
  ctx: CommandContext,
  target: string,
  flags: ResolveFlags,
): Promise<void> {
  if (flags.as !== "succeeded" && flags.as !== "failed")
    throw new UsageError(`--as must be succeeded or failed, got "${flags.as}"`);
  const note = personText(flags.note, "--note");
  if (!note) throw new UsageError('--note "why" is required: it goes into the purchase\'s history');
  const { db } = await openLedger(ctx);
  const row = await findPurchase(db, target);
  const reference = flags.reference?.trim() || undefined;
  const outcome = await resolveAsPerson(db, row, flags.as, reference, {
    actor: personActor(),
    reason: `resolved by hand as ${flags.as}: ${note}`,
  });
  if (!outcome.ok && outcome.code === "REFERENCE_TAKEN")
    throw new UsageError(
      `--reference ${inert(outcome.reference)} is already on purchase ${outcome.holder.id} (${outcome.holder.state}); one provider reference is one purchase: nothing was settled, and both purchases are flagged reference_clash`,
      "REFERENCE_TAKEN",
    );
  if (!outcome.ok) throw wrongState(row, "resolve", [...outcome.allowed]);
  write(`purchase ${row.id}: ${outcome.moved.from_state} → ${flags.as}\n`);
}

export async function purchasesRequeueCommand(ctx: CommandContext, target: string): Promise<void> {
  const { db } = await openLedger(ctx);
  const row = await findPurchase(db, target);
  const outcome = await requeueAsPerson(db, row, { actor: personActor(), reason: "requeued by hand" });
  if (!outcome.ok) throw wrongState(row, "requeue", ["failed", "rejected"]);
  write(`purchase ${row.id}: ${outcome.moved.from_state} → queued (the next purchases run buys it)\n`);
}

export async function purchasesCancelCommand(
  ctx: CommandContext,
  target: string,
  flags: { reason?: string } = {},
): Promise<void> {
  const reason = personText(flags.reason, "--reason");
  if (flags.reason !== undefined && !reason)
    throw new UsageError("--reason is empty; say why the purchase is cancelled");
  const database = await openLedger(ctx);
  const row = await findPurchase(database.db, target);
  const user = process.env.USER ?? "operator";
  const { cancelPurchase } = await import("../plans/cancel.js");
  const result = await cancelPurchase(
    database,
    row.id,
    { actor: personActor(), reason: `cancelled by hand by ${user}: ${reason ?? "no reason given"}` },
    new Date(),
  );
  if (!result.moved) throw wrongState({ ...row, state: result.from }, "cancel", [...CANCELLABLE_STATES]);
  const plan = result.plan;
  const tail = !plan
    ? ""
    : plan.status === "cancelled"
      ? `; saved plan ${plan.id} is cancelled: none of its purchases is left`
      : `; saved plan ${plan.id} (${plan.status}) keeps ${plan.left} purchase${plan.left === 1 ? "" : "s"}, reserving ${plan.reserved}`;
  if (ctx.globals.json)
    write(
      renderJson({
        id: row.id,
        from: result.from,
        to: "cancelled",
        ...(plan
          ? { plan: { id: plan.id, status: plan.status, left: plan.left, reserved: plan.reserved } }
          : {}),
      }),
    );
  else write(`purchase ${row.id}: ${result.from} → cancelled${tail}\n`);
}

function personActor(): string {
  return `person:${process.env.USER ?? "operator"}`;
}

function wrongState(row: PurchaseRow, action: string, allowed: string[]): UsageError {
  return new UsageError(
    `cannot ${action} purchase ${row.id}: it is ${row.state}, and only ${allowed.join(" or ")} purchases can be ${action === "cancel" ? "cancelled" : `${action}d`}`,
    "WRONG_STATE",
  );
}

function parseState(text: string): PurchaseState {
  if ((PURCHASE_STATES as readonly string[]).includes(text)) return text as PurchaseState;
  throw new UsageError(`--state must be one of ${PURCHASE_STATES.join(", ")}; got "${text}"`);
}

/**
 * `--since`/`--before` as an instant: a duration back from now or a calendar date, a date or a time without an
 * offset read on the config's clock (`timeZone`, as reports count days), never the machine's. A duration reaching
 * back before 1970 means since 1970 (the ledger holds nothing older): `--since 100000000d` is "everything", not a
 * date neither JavaScript nor PostgreSQL can hold.
 */
export function parseSince(text: string, timeZone: string): Date {
  try {
    return new Date(Math.max(0, Date.now() - parseDuration(text)));
  } catch {
    const date = zonedInstant(text, timeZone);
    if (date) return date;
    throw new UsageError(
      `--since must be a duration like 7d or 24h, or a real date like 2026-11-01; got "${text}"`,
    );
  }
}

/**
 * Text about a purchase as shown: unless asked for phones, its own phone masked wherever it appears as written
 * (it may not look like a phone at all), and every number in any phone form too — the provider's messages
 * repeat the number in the international form.
 */
function shownText(text: string, phone: string, showPhone: boolean): string {
  return showPhone ? text : maskPhonesIn(text.split(phone).join(maskPhone(phone)));
}

function view(row: PurchaseRow, showPhone: boolean) {
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
    updated_at: row.updated_at.toISOString(),
  };
}

/** The amount as listed, and what the provider charged where it said something else. */
function charged(row: PurchaseRow): string | null {
  if (!row.charged_amount || row.charged_amount === row.amount) return row.amount;
  return `${row.amount ?? "-"} listed, ${row.charged_amount} charged`;
}
