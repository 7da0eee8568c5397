// The purchase ledger's state machine: every transition is one named function running one atomic statement
// that names the states it expects and appends the event. A function returns the row it moved, or
// undefined when the row was not in an expected state (someone else got there first).
import { type SQL, sql } from "drizzle-orm";
import { type Database, type Db, type Executor, rows } from "../db/client.js";
import { fixedStatement } from "../db/fixed-statement.js";
import type { PurchaseState, purchases } from "../db/schema.js";
import { purchaseNotices } from "../notify/outbox/write.js";
import { cappedResponse, cappedResponseJson, capText, MAX_STORED_TEXT_CHARS } from "../text/cap.js";
import { mayHoldUnstorable, storable } from "../text/storable.js";
import { recentlyBeating } from "./run-liveness.js";

export type PurchaseRow = typeof purchases.$inferSelect;
export type NewPurchase = typeof purchases.$inferInsert;

/** States whose amount counts against the daily budget (DESIGN §4). */
export const COMMITTED_STATES: readonly PurchaseState[] = [
  "submitting",
  "submitted",
  "succeeded",
  "unverified",
  "in_doubt",
];

export interface TransitionEvent {
  actor: string;
  reason?: string | null;
  response?: unknown;
}

export interface Moved {
  id: number;
  from_state: PurchaseState;
  /** Set when the transition recorded an accepted answer (`answered`): its place in the order of answers. */
  answer_seq?: number | null;
}

/**
 * A transition that would have attached a reference another purchase carries (or another purchase of the same
 * statement was given): the row did not move. One provider reference is one purchase; the caller flags both.
 */
export interface Clashed {
  id: number;
  from_state: PurchaseState;
  reference: string;
  /** The purchase that carries the reference (or was given it by the same statement). */
  clashWith: number;
}

export function isClash(result: Moved | Clashed | undefined): result is Clashed {
  return result !== undefined && "clashWith" in result;
}

/** The columns a transition may set, with the SQL type each travels as in the statement's JSON document. */
const COLUMN_TYPES = {
  reference: "text",
  submitted_at: "timestamptz",
  next_verify_at: "timestamptz",
  provider_status: "text",
  provider_message: "text",
  refund_amount: "numeric",
  settled_at: "timestamptz",
  not_before: "timestamptz",
  attempts: "integer",
  reason: "text",
  amount: "numeric",
  budget_day: "date",
  charged_amount: "numeric",
  note: "text",
} as const;
type Column = keyof typeof COLUMN_TYPES;
const COLUMNS = Object.keys(COLUMN_TYPES) as Column[];

/** Values for the columns a transition sets; the ones it leaves out keep their value. */
export type TransitionSet = Partial<Record<Column, string | number | Date | null>>;

/** One purchase to move: the states it may be in, where it goes, the columns to set, and its event. */
export interface Transition {
  id: number;
  from: readonly PurchaseState[];
  to: PurchaseState;
  set: TransitionSet;
  actor: string;
  reason?: string | null;
  response?: unknown;
  /** The provider accepted the purchase: the row takes the next `answer_seq`. */
  answered?: boolean;
}

const COLUMN_SHAPE = sql.raw(COLUMNS.map((c) => `${c} ${COLUMN_TYPES[c]}`).join(", "));
const COLUMN_ASSIGNMENTS = sql.raw(
  [
    ...COLUMNS.map((c) => `${c} = case when '${c}' = any(v.set_columns) then v.${c} else p.${c} end`),
    // An in_doubt purchase settled as bought (a person, or the provider's evidence) takes its place in the order of
    // answers as it is settled: the balance on record may have been reported before its charge, and the wallet
    // floor counts it until a balance reported after the settlement (wallet.ts, UNREFLECTED).
    `answer_seq = case when v.answered or (old.state = 'in_doubt' and v.to_state = 'succeeded')
      then nextval('purchase_answer_seq') else p.answer_seq end`,
  ].join(", "),
);
const COMMITTED_ARRAY = `{${COMMITTED_STATES.join(",")}}`;

/** The notifications a transition causes (in_doubt, unverified, a mismatch note, a resolution), in its statement. */
const TRANSITION_NOTICES = purchaseNotices(
  sql`select event.id as event_id, event.purchase_id, event.from_state, event.to_state, event.reason, v.note,
        v.reference, v.charged_amount as charged
      from event join v on v.id = event.purchase_id
      where event.to_state in ('in_doubt', 'unverified') or event.from_state in ('in_doubt', 'unverified')
        or v.note is not null`,
);

/**
 * The one statement every transition runs, whatever its states and columns (so a batch can mix kinds and the
 * statement is prepared once): each item names the columns it sets (`set_columns`); the others keep their value.
 */
const transitionStatement = fixedStatement(2, (payload: string, ids: string): SQL => {
  // An item attaching a reference that another purchase carries (or carried: `purchases prune` keeps the references
  // of the purchases it takes, and a requeue those of the attempts before), or that an item of a lower id in this
  // statement attaches, does not move (`clash_with` names the other): a reference belongs to one purchase (the
  // unique index would otherwise fail the whole statement, every other purchase of the batch with it).
  return sql`with given as (
      select * from json_to_recordset(${payload}::json) as v(id bigint, from_states text[], to_state text,
        actor text, event_reason text, event_response json, set_columns text[], answered boolean, ${COLUMN_SHAPE})
    ), v as (
      select given.*, case when 'reference' = any(given.set_columns) and given.reference is not null then coalesce(
          (select q.id from purchases q where q.reference = given.reference and q.id <> given.id limit 1),
          (select r.purchase_id from pruned_purchases r where r.reference = given.reference
            and r.purchase_id <> given.id limit 1),
          (select e.purchase_id from earlier_references e where e.reference = given.reference
            and e.purchase_id <> given.id limit 1),
          nullif(min(given.id) over (partition by given.reference), given.id))
        end as clash_with
      from given
    ), old as (
      select p.id, p.state, coalesce(p.charged_amount, p.amount) as counted from purchases p
      where p.id = any(${ids}::bigint[]) order by p.id for update of p
    ), moved as (
      update purchases p set state = v.to_state, ${COLUMN_ASSIGNMENTS}, updated_at = now()
      from old join v on v.id = old.id
      where p.id = old.id and old.state = any(v.from_states) and v.clash_with is null
      returning p.id, old.state as from_state, v.to_state, p.budget_day, p.answer_seq,
        case when old.state = any(${COMMITTED_ARRAY}::text[]) then coalesce(old.counted, 0) else 0 end as before,
        case when v.to_state = any(${COMMITTED_ARRAY}::text[]) then coalesce(p.charged_amount, p.amount, 0) else 0 end
          as after
    ), event as (
      insert into purchase_events (purchase_id, actor, from_state, to_state, reason, response)
      select moved.id, v.actor, moved.from_state, moved.to_state, v.event_reason, v.event_response
      from moved join v on v.id = moved.id
      returning id, purchase_id, from_state, to_state, reason
    ), notice as (${TRANSITION_NOTICES}
    ), budget as (
      update budget_days b set committed = b.committed + r.delta
      from (select budget_day, sum(after - before) as delta from moved
            where budget_day is not null and after <> before group by budget_day) r
      where b.day = r.budget_day
    )
    select id, from_state, answer_seq, null::bigint as clash_with, null::text as reference from moved
    union all
    select v.id, old.state, null, v.clash_with, v.reference from v join old on old.id = v.id
    where v.clash_with is not null and old.state = any(v.from_states)`;
});

/**
 * One item of the statement's JSON document. Every item is built with every key in one order (columns it does
 * not set are undefined, so the JSON leaves them out, and `set_columns` says which ones count): objects of one
 * shape are cheap to build and to serialise in bulk.
 */
function payloadItem(item: Transition) {
  const set = item.set;
  return {
    id: item.id,
    from_states: item.from,
    to_state: item.to,
    actor: item.actor,
    event_reason: item.reason == null ? null : capText(item.reason),
    set_columns: Object.keys(set),
    answered: item.answered === true,
    reference: param(set.reference),
    submitted_at: param(set.submitted_at),
    next_verify_at: param(set.next_verify_at),
    provider_status: param(
      typeof set.provider_status === "string" ? capText(set.provider_status) : set.provider_status,
    ),
    provider_message: param(set.provider_message),
    refund_amount: param(set.refund_amount),
    settled_at: param(set.settled_at),
    not_before: param(set.not_before),
    attempts: param(set.attempts),
    reason: param(set.reason),
    amount: param(set.amount),
    budget_day: param(set.budget_day),
    charged_amount: param(set.charged_amount),
    note: param(set.note),
  } satisfies Record<Column, unknown> & Record<string, unknown>;
}

/**
 * One item's JSON: `payloadItem` and its `event_response`, the answer as stored (`cappedResponse`). The answer's
 * JSON text is made once and put in as it is, rather than made to measure it and then again inside the document.
 */
function payloadItemJson(item: Transition): string {
  const rest = JSON.stringify(payloadItem(item));
  const response = cappedResponseJson(item.response);
  // A response JSON has no value for is left out, as JSON.stringify leaves out an undefined property.
  return response === undefined ? rest : `${rest.slice(0, -1)},"event_response":${response}}`;
}

/**
 * Moves purchases in one statement, each from one of its `from` states to its `to`: sets its columns, appends
 * its event, and gives amounts back to their budget days when purchases leave the committed states. Returns
 * the rows moved, and the rows that stayed because the reference they were to take is another purchase's
 * (`Clashed`); a row in another state is left alone. An id appears at most once per call.
 */
export async function transitionMany(
  db: Executor,
  items: readonly Transition[],
): Promise<Array<Moved | Clashed>> {
  if (items.length === 0) return [];
  const payload = storablePayload(`[${items.map(payloadItemJson).join(",")}]`);
  const ids = idArray(items.map((item) => item.id));
  const result = await rows<{
    id: number | string;
    from_state: PurchaseState;
    answer_seq: number | string | null;
    clash_with: number | string | null;
    reference: string | null;
  }>(db, transitionStatement(payload, ids));
  return result.map((row) =>
    row.clash_with === null
      ? {
          id: Number(row.id),
          from_state: row.from_state,
          answer_seq: row.answer_seq === null ? null : Number(row.answer_seq),
        }
      : {
          id: Number(row.id),
          from_state: row.from_state,
          reference: row.reference ?? "",
          clashWith: Number(row.clash_with),
        },
  );
}

/**
 * The statement's document as PostgreSQL can read it. An answer's strings come storable from the HTTP client, but
 * a transition also carries text made here (reasons, notes, cut answers): a NUL or half a surrogate pair among it
 * would fail the statement and every purchase batched with it. JSON.stringify writes each as a \u escape, which
 * the cheap test finds; the rare document that has one is written again with it replaced (storable.ts).
 */
function storablePayload(payload: string): string {
  return mayHoldUnstorable(payload) ? JSON.stringify(storable(JSON.parse(payload))) : payload;
}

/** Something that moves purchases in batches (batcher.ts): hot paths send their transitions through it. */
export interface TransitionSink {
  move(transition: Transition): Promise<Moved | Clashed | undefined>;
}

/** Where a transition goes: straight to the database, or to a batcher that writes many at once. */
export type LedgerTarget = Executor | TransitionSink;

/** Moves one purchase that takes no reference (see transitionMany): it cannot clash. */
async function transition(
  target: LedgerTarget,
  id: number,
  from: readonly PurchaseState[],
  to: PurchaseState,
  set: Omit<TransitionSet, "reference">,
  event: TransitionEvent,
  answered = false,
): Promise<Moved | undefined> {
  const moved = await transitionTakingReference(target, id, from, to, set, event, answered);
  return isClash(moved) ? undefined : moved;
}

/** Moves one purchase (see transitionMany); a reference another purchase carries is a clash, and nothing moves. */
async function transitionTakingReference(
  target: LedgerTarget,
  id: number,
  from: readonly PurchaseState[],
  to: PurchaseState,
  set: TransitionSet,
  event: TransitionEvent,
  answered = false,
): Promise<Moved | Clashed | undefined> {
  const item: Transition = {
    id,
    from,
    to,
    set,
    actor: event.actor,
    reason: event.reason,
    response: event.response,
    answered,
  };
  if ("move" in target) return target.move(item);
  try {
    const [moved] = await transitionMany(target, [item]);
    return moved;
  } catch (error) {
    // Another statement attached the same reference between this one's check and its write: once more, and
    // the check sees it now.
    if (set.reference == null || !isUniqueViolation(error)) throw error;
    const [moved] = await transitionMany(target, [item]);
    return moved;
  }
}

/** A unique index refused a write (SQLSTATE 23505), as either driver reports it. */
function isUniqueViolation(error: unknown): boolean {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e)
    if (e.code === "23505") return true;
  return false;
}

/** A value for a raw statement: dates as ISO text, which both drivers accept for timestamptz. */
export function param(value: unknown): unknown {
  return value instanceof Date ? value.toISOString() : value;
}

/** Ids as one array parameter (`= any($1::bigint[])`), so the primary key is used whatever the statistics say. */
export function idArray(ids: readonly number[]): string {
  return `{${ids.map((id) => Math.trunc(id)).join(",")}}`;
}

export function json(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

/**
 * The POST answered success with a reference: verification is next. `charged` is what the answer says the
 * provider took (null when it did not say: the listed price counts); a charge above the listed price carries
 * a `price_mismatch` note. The row takes its place in the order of answers (`answer_seq`).
 */
export function markSubmitted(
  db: LedgerTarget,
  id: number,
  reference: string,
  nextVerifyAt: Date,
  event: TransitionEvent,
  charged: { amount: string | null; note: string | null } = { amount: null, note: null },
): Promise<Moved | Clashed | undefined> {
  // From in_doubt too: an answer that arrives after a sweep moved the row (a database blip) is attached to it,
  // and verification settles it like any submitted purchase.
  return transitionTakingReference(
    db,
    id,
    ["submitting", "in_doubt"],
    "submitted",
    {
      reference,
      submitted_at: new Date(),
      next_verify_at: nextVerifyAt,
      provider_status: "submitted",
      ...(charged.amount ? { charged_amount: charged.amount } : {}),
      ...(charged.note ? { note: charged.note } : {}),
    },
    event,
    true,
  );
}

/** The provider said no before or after taking the order (refused, 4xx, or verify says failed/reversed). */
export function markFailed(
  db: LedgerTarget,
  id: number,
  from: readonly PurchaseState[],
  details: { message: string; providerStatus?: string; refund?: string | null },
  event: TransitionEvent,
): Promise<Moved | undefined> {
  return transition(
    db,
    id,
    from,
    "failed",
    {
      provider_message: details.message.slice(0, 1000),
      provider_status: details.providerStatus ?? null,
      refund_amount: details.refund ?? null,
      settled_at: new Date(),
      next_verify_at: null,
    },
    event,
  );
}

/** Certainly not processed (not sent, 429): back to the queue to try again at `notBefore`. */
export function requeueForRetry(
  db: LedgerTarget,
  id: number,
  notBefore: Date,
  event: TransitionEvent,
): Promise<Moved | undefined> {
  return transition(db, id, ["submitting"], "queued", { not_before: notBefore }, event);
}

/** Claimed but never sent (the run stopped first): back to the queue, this attempt not counted. */
export function returnUnsent(
  db: LedgerTarget,
  id: number,
  attempts: number,
  event: TransitionEvent,
): Promise<Moved | undefined> {
  return transition(db, id, ["submitting"], "queued", { not_before: new Date(), attempts }, event);
}

/** Claimed but not sent, and never to be sent as it stands (its plan was blocked meanwhile): rejected. */
export function rejectUnsent(
  db: LedgerTarget,
  id: number,
  reason: string,
  event: TransitionEvent,
): Promise<Moved | undefined> {
  return transition(db, id, ["submitting"], "rejected", { reason, settled_at: new Date() }, event);
}

/**
 * Rows of `runId` in submitting that it never knew it claimed (`known` holds the ones it did): back to the queue.
 * The run's rows still in submitting are read and compared here, not the other way round: a run's `known` is every
 * row it claimed (100,000 ids in a large run), and sent as a parameter it cost the embedded database some 20 MB of
 * memory it never gives back, where the rows left in submitting at a run's end are almost always none.
 */
export async function returnUnclaimedSubmitting(
  db: Executor,
  runId: string,
  known: ReadonlySet<number>,
  event: TransitionEvent,
): Promise<number> {
  const found = await rows<{ id: number | string; attempts: number }>(
    db,
    sql`select id, attempts from purchases where state = 'submitting' and run_id = ${runId}`,
  );
  const moved = await transitionMany(
    db,
    found
      .filter((row) => !known.has(Number(row.id)))
      .map((row) => ({
        id: Number(row.id),
        from: ["submitting"],
        to: "queued",
        set: { not_before: new Date(), attempts: Math.max(0, row.attempts - 1) },
        actor: event.actor,
        reason: event.reason,
      })),
  );
  return moved.length;
}

/** The outcome of the POST is unknown: money may have moved. Never retried by itself. */
export function markInDoubt(
  db: LedgerTarget,
  id: number,
  event: TransitionEvent,
): Promise<Moved | undefined> {
  return transition(db, id, ["submitting"], "in_doubt", { next_verify_at: null }, event);
}

/** Verification said success. */
export function markSucceeded(
  db: LedgerTarget,
  id: number,
  from: readonly PurchaseState[],
  providerStatus: string,
  event: TransitionEvent,
): Promise<Moved | undefined> {
  return transition(
    db,
    id,
    from,
    "succeeded",
    { provider_status: providerStatus, settled_at: new Date(), next_verify_at: null },
    event,
  );
}

/** No final status before verification.timeout: later runs keep checking until the horizon. */
export function markUnverified(
  db: LedgerTarget,
  id: number,
  nextVerifyAt: Date | null,
  event: TransitionEvent,
): Promise<Moved | undefined> {
  return transition(db, id, ["submitted"], "unverified", { next_verify_at: nextVerifyAt }, event);
}

/** A verify answer disagreed with the purchase: unverified, not checked again by itself, with the reason. */
export function markVerifyMismatch(
  db: LedgerTarget,
  id: number,
  note: string,
  event: TransitionEvent,
): Promise<Moved | undefined> {
  return transition(db, id, ["submitted", "unverified"], "unverified", { next_verify_at: null, note }, event);
}

/** A later check of an unverified purchase that is still not final: when to look again. */
export async function postponeVerify(
  db: Executor,
  id: number,
  nextVerifyAt: Date | null,
  providerStatus: string | null,
): Promise<void> {
  await rows(
    db,
    sql`update purchases set next_verify_at = ${param(nextVerifyAt)}, provider_status = coalesce(${providerStatus}, provider_status),
        verify_attempts = verify_attempts + 1, updated_at = now()
        where id = ${id} and state in ('submitted', 'unverified')`,
  );
}

/**
 * An in_doubt purchase settled by proof: a provider notification (or statement line) named a reference, and the
 * verify answer for that reference is about this purchase (verify-check.ts) and final. The reference is attached; the event
 * names the notification and carries the verify answer.
 */
export function settleInDoubtByProof(
  db: LedgerTarget,
  id: number,
  to: "succeeded" | "failed",
  details: { reference: string; providerStatus: string; message?: string | null; refund?: string | null },
  event: TransitionEvent,
  from: readonly PurchaseState[] = ["in_doubt"],
): Promise<Moved | Clashed | undefined> {
  return transitionTakingReference(
    db,
    id,
    from,
    to,
    {
      reference: details.reference,
      provider_status: details.providerStatus,
      ...(to === "failed"
        ? { provider_message: (details.message ?? "").slice(0, 1000), refund_amount: details.refund ?? null }
        : {}),
      settled_at: new Date(),
      next_verify_at: null,
    },
    event,
  );
}

/** The states a person may settle a purchase from; a purchase flagged `reference_clash` from any it may be in. */
export const RESOLVABLE_STATES: readonly PurchaseState[] = ["in_doubt", "unverified"];
export const CLASH_RESOLVABLE_STATES: readonly PurchaseState[] = [
  "in_doubt",
  "unverified",
  "submitted",
  "succeeded",
  "failed",
];
/** The note kind of purchases that claim one provider reference between them. */
export const REFERENCE_CLASH = "reference_clash";

/**
 * A person settles an in_doubt or unverified purchase, or (`clash`) one flagged `reference_clash`, whose note
 * the settlement clears: the person decided which purchase the reference is.
 */
export function resolveByPerson(
  db: Executor,
  id: number,
  to: "succeeded" | "failed",
  set: { reference?: string | null; clash?: boolean },
  event: TransitionEvent,
): Promise<Moved | Clashed | undefined> {
  const extra = set.reference ? { reference: set.reference } : {};
  return transitionTakingReference(
    db,
    id,
    set.clash ? CLASH_RESOLVABLE_STATES : RESOLVABLE_STATES,
    to,
    { ...extra, ...(set.clash ? { note: null } : {}), settled_at: new Date(), next_verify_at: null },
    event,
  );
}

/**
 * The provider's purchase answer names a reference another purchase carries: the purchase was bought (the answer
 * says so) but cannot take the reference. It becomes `unverified` with a `reference_clash` note, is not verified by
 * itself, and keeps its place in the order of answers (the wallet counts it); the reference is in the note and the
 * event. The caller flags the other purchase too (`flagReferenceClash`).
 */
export function markAnsweredWithClash(
  db: LedgerTarget,
  id: number,
  clash: { reference: string; clashWith: number },
  event: TransitionEvent,
  charged: { amount: string | null } = { amount: null },
): Promise<Moved | undefined> {
  const note = `${REFERENCE_CLASH}: the provider's purchase answer names reference ${clash.reference}, which purchase ${clash.clashWith} carries; one provider transaction cannot be two purchases, a person decides which purchase it is`;
  return transition(
    db,
    id,
    ["submitting", "in_doubt"],
    "unverified",
    {
      submitted_at: new Date(),
      next_verify_at: null,
      provider_status: "submitted",
      ...(charged.amount ? { charged_amount: charged.amount } : {}),
      note,
    },
    { ...event, reason: note },
    true,
  );
}

/**
 * A flag's `updated_at`: now, except on an in_doubt purchase, whose `updated_at` says since when it is in doubt (the
 * oldest-in-doubt gauge and its alert read it): a note added to it must not make it look new.
 */
const keepInDoubtSince = (alias = "") =>
  sql.raw(`case when ${alias}state = 'in_doubt' then ${alias}updated_at else now() end`);

/**
 * Flags purchases for a person without changing their state (no money moves): each gets a `reference_clash` note
 * saying why and an event. Returns the ids flagged.
 */
export async function flagReferenceClash(
  db: Executor,
  ids: readonly number[],
  why: string,
  event: Omit<TransitionEvent, "reason">,
): Promise<number[]> {
  if (ids.length === 0) return [];
  const note = capText(`${REFERENCE_CLASH}: ${why}`);
  const flagged = await rows<{ id: number | string }>(
    db,
    sql`with flagged as (
          update purchases set note = ${note}, updated_at = ${keepInDoubtSince()}
          where id = any(${idArray(ids)}::bigint[]) returning id, state
        ), event as (
          insert into purchase_events (purchase_id, actor, from_state, to_state, reason, response)
          select id, ${event.actor}, state, state, ${note}, ${json(cappedResponse(event.response))}::json from flagged
        )
        select id from flagged`,
  );
  return flagged.map((row) => Number(row.id));
}

/** The note of a succeeded purchase the provider has since reversed (or failed). */
export const REVERSED = "reversed";
/** The note of a failed purchase the provider has since delivered, and charged for. */
export const DELIVERED_AFTER_FAILURE = "delivered_after_failure";
/** The note of a purchase whose attempt before a person requeued it the provider has since delivered, and charged for. */
export const EARLIER_ATTEMPT_DELIVERED = "earlier_attempt_delivered";

/** How a flag's note keeps the note it was put over (flagContradicted, flagEarlierAttemptDelivered). */
const EARLIER_NOTE = " (earlier note: ";

/**
 * Whether a note carries the flag `kind`: as its own (`kind: …`), or kept after a flag put over it since (`… (earlier
 * note: kind: …)`). A flag counted once stays counted however many flags come after it.
 */
export function carriesFlag(note: string | null, kind: string): boolean {
  return note !== null && (note.startsWith(`${kind}:`) || note.includes(`${EARLIER_NOTE}${kind}:`));
}

/** `carriesFlag` in SQL, of the column `note` of the row it is about. */
function carriesFlagSql(note: SQL, kind: string): SQL {
  return sql`(coalesce(${note}, '') like ${`${kind}:%`} or strpos(coalesce(${note}, ''), ${`${EARLIER_NOTE}${kind}:`}) > 0)`;
}

/** A flag's note put over the note the row has, which is kept after it (cut to what the column holds). */
function overNote(note: string, existing: SQL): SQL {
  return sql`left(${note} || coalesce(${EARLIER_NOTE} || ${existing} || ')', ''), ${MAX_STORED_TEXT_CHARS})`;
}

/** The notes of a final purchase the provider's verify contradicts later, each with the state the purchase keeps. */
export const CONTRADICTED_STATE = {
  [REVERSED]: "succeeded",
  [DELIVERED_AFTER_FAILURE]: "failed",
} as const satisfies Record<string, PurchaseState>;
export type ContradictionNote = keyof typeof CONTRADICTED_STATE;

/**
 * Flags a final purchase whose transaction the provider has since contradicted (a verify answer said so): a
 * `succeeded` one reversed (`reversed`), a `failed` one delivered after all (`delivered_after_failure`). The note
 * says what happened, an event keeps the answer, and the episode of the trigger named as the note opens, in one
 * statement. The state stays (final: whether the customer has the data, and whether to buy again, is for a person).
 * The money follows what the provider did: a succeeded purchase's spend stays counted; a failed one's charge is added
 * to its budget day's committed total, which is what the claim reads against `budget.daily_limit` (so a charge the
 * provider made counts against the cap, and the claim reads nothing more). A note already on the purchase (a
 * `price_mismatch`) is kept after it. False when the purchase is no longer in that state with that reference, or is
 * flagged already, even under a flag put over it since (a notification delivered twice flags once, and counts its
 * charge once).
 */
export async function flagContradicted(
  db: Executor,
  kind: ContradictionNote,
  id: number,
  reference: string,
  why: string,
  event: Omit<TransitionEvent, "reason">,
): Promise<boolean> {
  const note = capText(`${kind}: ${why}`);
  const flagged = await rows<{ id: number | string }>(
    db,
    sql`with flagged as (
          update purchases set note = ${overNote(note, sql`note`)}, updated_at = now()
          where id = ${id} and state = ${CONTRADICTED_STATE[kind]} and reference = ${reference}
            and not ${carriesFlagSql(sql`note`, kind)}
          returning id, state, note, budget_day, coalesce(charged_amount, amount, 0) as charged
        ), event as (
          insert into purchase_events (purchase_id, actor, from_state, to_state, reason, response)
          select id, ${event.actor}, state, state, note, ${json(cappedResponse(event.response))}::json from flagged
          returning id, purchase_id, from_state, to_state, reason
        ), notice as (${purchaseNotices(
          sql`select id as event_id, purchase_id, from_state, to_state, reason, reason as note,
                null::text as reference, null::numeric as charged from event`,
        )}), budget as (
          update budget_days b set committed = b.committed + f.charged from flagged f
          where b.day = f.budget_day and not f.state = any(${COMMITTED_ARRAY}::text[])
        )
        select id from flagged`,
  );
  return flagged.length > 0;
}

/**
 * Flags a purchase whose attempt before a person requeued it (`reference`, in `earlier_references` as this purchase's
 * and ended failed or rejected) the provider has since delivered after all, and charged for (a verify answer of that
 * reference said so): the customer may have the data twice, when the attempt after it succeeded too. The purchase's
 * state is its current attempt's and stays; the note (`earlier_attempt_delivered: …`, a note already there kept after
 * it) says what happened, an event keeps the answer, the `earlier_attempt_delivered` episode opens naming that
 * reference and its charge, and the charge is added to the committed money of that attempt's budget day (what the
 * claim reads against `budget.daily_limit`), in one statement. Once per reference: the attempt's row records it
 * (`delivered_at`, also set when the attempt's delivery was flagged `delivered_after_failure` before the requeue), so
 * a notification delivered twice, or a statement line after it, flags and counts nothing more. False then, or when
 * the reference is not an earlier attempt of this purchase.
 */
export async function flagEarlierAttemptDelivered(
  db: Executor,
  id: number,
  reference: string,
  why: string,
  event: Omit<TransitionEvent, "reason">,
): Promise<boolean> {
  const note = capText(`${EARLIER_ATTEMPT_DELIVERED}: ${why}`);
  const flagged = await rows<{ id: number | string }>(
    db,
    sql`with attempt as (
          update earlier_references set delivered_at = now()
          where reference = ${reference} and purchase_id = ${id} and state in ('failed', 'rejected')
            and delivered_at is null
          returning purchase_id, reference, amount, budget_day
        ), flagged as (
          update purchases p set note = ${overNote(note, sql`p.note`)}, updated_at = ${keepInDoubtSince("p.")}
          from attempt a where p.id = a.purchase_id
          returning p.id, p.state, p.note, a.reference, a.amount, a.budget_day
        ), event as (
          insert into purchase_events (purchase_id, actor, from_state, to_state, reason, response)
          select id, ${event.actor}, state, state, note, ${json(cappedResponse(event.response))}::json from flagged
          returning id, purchase_id, from_state, to_state, reason
        ), notice as (${purchaseNotices(
          sql`select event.id as event_id, event.purchase_id, event.from_state, event.to_state, event.reason,
                event.reason as note, f.reference, f.amount as charged from event join flagged f on f.id = event.purchase_id`,
        )}), budget as (
          update budget_days b set committed = b.committed + f.amount from flagged f
          where b.day = f.budget_day and f.amount is not null
        )
        select id from flagged`,
  );
  return flagged.length > 0;
}

/**
 * Another purchase that already carries a provider reference, or did (an earlier attempt's, or a pruned purchase's):
 * one reference is one purchase.
 */
export async function otherPurchaseWithReference(
  db: Executor,
  reference: string,
  id: number,
): Promise<{ id: number; state: PurchaseState } | undefined> {
  const [found] = await rows<{ id: number | string; state: PurchaseState }>(
    db,
    sql`(select id, state from purchases where reference = ${reference} and id <> ${id} order by id limit 1)
        union all
        (select purchase_id, state from earlier_references where reference = ${reference} and purchase_id <> ${id})
        union all
        (select purchase_id, state from pruned_purchases where reference = ${reference} and purchase_id <> ${id}
          limit 1)
        limit 1`,
  );
  return found ? { id: Number(found.id), state: found.state } : undefined;
}

/**
 * A person puts a failed or rejected purchase back in the queue: a new attempt, so nothing of the last one's outcome
 * stays on the row (its charge would be counted as the new attempt's when that one is answered; its refund, status
 * and settlement time would be shown as the new attempt's; its note — a flag such as `delivered_after_failure`,
 * which the person has seen — would stop the same flag being raised about the new attempt). The events keep them.
 * The failed attempt's reference moves to `earlier_references` first, with what it was charged and its budget day
 * (a late delivery of it is counted there, flagEarlierAttemptDelivered) and whether its delivery was flagged
 * already: evidence naming that transaction still finds this purchase (and no other), while the row carries no
 * reference until the new attempt's answer names one, so a person settling the new attempt without its reference
 * leaves a purchase that could own any transaction near its POST, as a settled purchase without a reference is.
 * (Were the move cut between the two statements, the reference would be on the row and in the table, both naming
 * this purchase.)
 */
export async function requeueByPerson(
  db: Executor,
  id: number,
  event: TransitionEvent,
): Promise<Moved | undefined> {
  await rows(
    db,
    sql`insert into earlier_references (reference, purchase_id, state, amount, budget_day, delivered_at)
        select reference, id, state, coalesce(charged_amount, amount), budget_day,
          -- Its own delivery flagged already (the flag's note names the reference it is about).
          case when ${carriesFlagSql(sql`note`, DELIVERED_AFTER_FAILURE)} and strpos(note, reference) > 0 then now() end
        from purchases
        where id = ${id} and state in ('failed', 'rejected') and reference is not null
        on conflict (reference) do nothing`,
  );
  const moved = await transitionTakingReference(
    db,
    id,
    ["failed", "rejected"],
    "queued",
    {
      reference: null,
      not_before: new Date(),
      attempts: 0,
      reason: null,
      provider_message: null,
      provider_status: null,
      amount: null,
      charged_amount: null,
      refund_amount: null,
      settled_at: null,
      budget_day: null,
      note: null,
    },
    event,
  );
  return isClash(moved) ? undefined : moved; // a null reference clashes with nothing
}

/** States a person may cancel a purchase in: not sent, whether queued or held for an approval. */
export const CANCELLABLE_STATES: readonly PurchaseState[] = ["queued", "held"];

/**
 * A person withdraws a purchase that has not been sent (queued, or held for an approval); the reason is kept on the
 * row and its event. A purchase a saved plan covers is cancelled through plans/cancel.ts, which keeps the plan true.
 */
export function cancelByPerson(db: Executor, id: number, event: TransitionEvent): Promise<Moved | undefined> {
  return transition(
    db,
    id,
    CANCELLABLE_STATES,
    "cancelled",
    { settled_at: new Date(), reason: event.reason ?? null },
    event,
  );
}

/**
 * Rows left in `submitting` by runs that are no longer alive become in_doubt (their call's outcome is unknown). A
 * run is dead when its liveness lock is free and its heartbeat is older than the grace period (run-liveness.ts);
 * `waiting` counts rows of runs whose lock is free but whose heartbeat is recent, left for a later sweep.
 */
export async function sweepDeadSubmitting(
  database: Database,
  actor: string,
): Promise<{ swept: number; waiting: number }> {
  const owners = await rows<{ run_id: string; n: number | string }>(
    database.db,
    sql`select run_id, count(*) as n from purchases where state = 'submitting' and run_id is not null group by run_id`,
  );
  const unlocked: typeof owners = [];
  for (const owner of owners) if (!(await database.isRunAlive(owner.run_id))) unlocked.push(owner);
  const beating = await recentlyBeating(
    database,
    unlocked.map((o) => o.run_id),
  );
  let swept = 0;
  let waiting = 0;
  for (const { run_id, n } of unlocked) {
    if (beating.has(run_id)) {
      waiting += Number(n);
      continue;
    }
    const moved = await rows<{ id: number }>(
      database.db,
      sql`with old as (
            select id from purchases where state = 'submitting' and run_id = ${run_id} for update skip locked
          ), moved as (
            update purchases p set state = 'in_doubt', updated_at = now() from old where p.id = old.id returning p.id
          ), event as (
            insert into purchase_events (purchase_id, actor, from_state, to_state, reason)
            select id, ${actor}, 'submitting', 'in_doubt',
              'found in submitting after its run stopped during the purchase call, so its outcome is unknown'
            from moved
            returning id, purchase_id, from_state, to_state, reason
          ), notice as (${purchaseNotices(
            sql`select id as event_id, purchase_id, from_state, to_state, reason, null::text as note,
                  null::text as reference, null::numeric as charged from event`,
          )})
          select id from moved`,
    );
    swept += moved.length;
  }
  return { swept, waiting };
}

/**
 * Inserts new purchases in one statement; an existing request_key is left alone, and so is the key of a purchase
 * `purchases prune` removed (it was bought, or refused, long ago). Returns how many were new.
 */
export async function insertPurchases(
  db: Db,
  rowsToInsert: NewPurchase[],
  actor: string,
  reason = "accepted",
): Promise<number> {
  if (rowsToInsert.length === 0) return 0;
  const payload = JSON.stringify(
    rowsToInsert.map((r) => ({
      ...r,
      fire_time: r.fire_time?.toISOString() ?? null,
      not_before: (r.not_before ?? new Date()).toISOString(),
      ported: r.ported ?? false,
      max_attempts: r.max_attempts ?? 5,
    })),
  );
  return queueRows(
    db,
    sql`select * from jsonb_to_recordset(${payload}::jsonb) as x(
          request_key text, source text, job_name text, fire_time timestamptz, network text, plan_id text,
          plan_selector jsonb, phone text, ported boolean, max_price numeric, max_attempts integer,
          not_before timestamptz, requested_by text)`,
    actor,
    reason,
  );
}

/**
 * The advisory lock (two-key form, in topsync's space) that keeps the key of a purchase being pruned from being
 * bought again. Every insert into `purchases` takes it shared, in a statement of its own before the insert, and a
 * prune takes it exclusively before it moves a batch out, until it commits. Under READ COMMITTED a statement sees
 * what was committed when it started: an insert that waited for the prune then sees its keys in `pruned_purchases`.
 * Without the lock, an insert whose statement started before the prune committed would find no tombstone, wait at
 * the unique index for the prune deleting the purchase that holds the key, find it gone, and queue the key again.
 * One lock for the whole statement, whatever its number of rows, rather than one per key.
 */
export const PRUNED_KEYS_LOCK: readonly [number, number] = [7263, 3];

/**
 * Queues the rows `rowsQuery` yields (every column a new purchase is given, by name), each with its `queued`
 * event, skipping keys the ledger holds or pruned; returns how many were new. In a transaction of its own, or a
 * savepoint of the caller's, holding `PRUNED_KEYS_LOCK` shared from before the insert to the commit.
 */
async function queueRows(db: Db, rowsQuery: SQL, actor: string, reason: string): Promise<number> {
  return db.transaction(async (txn) => {
    const tx = txn as unknown as Db;
    await rows(
      tx,
      sql`select pg_advisory_xact_lock_shared(${PRUNED_KEYS_LOCK[0]}::int, ${PRUNED_KEYS_LOCK[1]}::int)`,
    );
    return insertRows(tx, rowsQuery, actor, reason);
  });
}

async function insertRows(tx: Db, rowsQuery: SQL, actor: string, reason: string): Promise<number> {
  const inserted = await rows<{ n: number }>(
    tx,
    sql`with x as (${rowsQuery}), inserted as (
          insert into purchases (request_key, source, job_name, fire_time, network, plan_id, plan_selector, phone, ported,
            max_price, max_attempts, not_before, requested_by)
          select request_key, source, job_name, fire_time, network, plan_id, plan_selector, phone, ported,
            max_price, max_attempts, not_before, requested_by from x
          where not exists (select 1 from pruned_purchases k where k.request_key = x.request_key)
          on conflict (request_key) do nothing
          returning id
        ), events as (
          insert into purchase_events (purchase_id, actor, to_state, reason)
          select id, ${actor}, 'queued', ${reason} from inserted
        )
        select count(*)::int as n from inserted`,
  );
  return inserted[0]?.n ?? 0;
}

/**
 * What every row of one job fire has in common: all but the recipient (`phone`, `ported`), and the request key,
 * which is `keyPrefix` followed by the phone.
 */
export interface FireRows {
  keyPrefix: string;
  job_name: string;
  fire_time: Date;
  network: string;
  plan_id: string | null;
  plan_selector: NewPurchase["plan_selector"];
  max_price: string | null;
  max_attempts: number;
  not_before: Date;
  requested_by: string;
}

/**
 * Queues one fire's rows, as `insertPurchases` would queue `{ ...fire, request_key: keyPrefix + phone, phone,
 * ported }` for each recipient (source "job"), but sends only the recipients with the fire once: a tenth of
 * the text to build, send and parse for a row. Returns how many were new.
 */
export async function insertFireRows(
  db: Db,
  fire: FireRows,
  recipients: ReadonlyArray<{ phone: string; ported: boolean }>,
  actor: string,
  reason = "accepted",
): Promise<number> {
  if (recipients.length === 0) return 0;
  const payload = JSON.stringify(recipients.map((r) => [r.phone, r.ported]));
  return queueRows(
    db,
    sql`select ${fire.keyPrefix} || (r ->> 0) as request_key, 'job' as source, ${fire.job_name} as job_name,
          ${fire.fire_time.toISOString()}::timestamptz as fire_time, ${fire.network} as network,
          ${fire.plan_id} as plan_id, ${json(fire.plan_selector)}::jsonb as plan_selector, r ->> 0 as phone,
          (r ->> 1)::boolean as ported, ${fire.max_price}::numeric as max_price,
          ${fire.max_attempts}::integer as max_attempts, ${fire.not_before.toISOString()}::timestamptz as not_before,
          ${fire.requested_by} as requested_by
        from json_array_elements(${payload}::json) as r`,
    actor,
    reason,
  );
}
