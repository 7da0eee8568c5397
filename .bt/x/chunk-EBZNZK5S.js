import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import {
  rows
} from "./chunk-BH4POYA2.js";
import {
  sql
} from "./chunk-FBKOPLBK.js";

// dist/text/cap.js
var MAX_STORED_RESPONSE_CHARS = 64 * 1024;
var MAX_STORED_TEXT_CHARS = 2e3;
function capText(text, max = MAX_STORED_TEXT_CHARS) {
  if (text.length <= max)
    return text;
  return `${text.slice(0, max)}\u2026 [truncated: ${text.length - max} more characters]`;
}
function cappedResponse(value, max = MAX_STORED_RESPONSE_CHARS) {
  if (value === void 0 || value === null)
    return null;
  const text = typeof value === "string" ? value : JSON.stringify(value);
  if (text === void 0 || text.length <= max)
    return value;
  return { truncated: true, length: text.length, head: text.slice(0, max) };
}

// dist/purchases/run-liveness.js
var HEARTBEAT_MS = 1e3;
var HEARTBEAT_GRACE_MS = 5e3;
var RunLiveness = class {
  database;
  runId;
  actor;
  logger;
  clock;
  release;
  timer;
  beating;
  /** False from the moment the run's lock is found lost until it is held again: the run must not claim. */
  held = false;
  /** When the lock was found lost (clock ms), while it is. */
  lostAt;
  constructor(database, runId, actor, logger, clock) {
    this.database = database;
    this.runId = runId;
    this.actor = actor;
    this.logger = logger;
    this.clock = clock;
  }
  async start() {
    this.release = await this.database.holdRunLock(this.runId);
    this.held = true;
    await this.beat();
    this.timer = setInterval(() => {
      this.beating ??= this.check().finally(() => {
        this.beating = void 0;
      });
    }, HEARTBEAT_MS);
    this.timer.unref();
  }
  async stop() {
    clearInterval(this.timer);
    await this.beating;
    await rows(this.database.db, sql`delete from purchase_runs where run_id = ${this.runId}`).catch(() => {
    });
    await this.release?.();
    this.release = void 0;
  }
  lost() {
    this.held = false;
    this.lostAt ??= this.clock.now();
  }
  /** The database's own clock, which the sweep compares with: no two clocks to disagree. */
  async beat() {
    await rows(this.database.db, sql`insert into purchase_runs (run_id, actor, heartbeat_at) values (${this.runId}, ${this.actor}, now())
          on conflict (run_id) do update set heartbeat_at = excluded.heartbeat_at returning run_id`);
  }
  /** One beat: the heartbeat row, then the lock; a lost lock is taken again (claiming waits until it is). */
  async check() {
    try {
      await this.beat();
      if (await this.database.isRunAlive(this.runId))
        return;
      if (this.held)
        this.logger.warn(`run ${this.runId} lost its liveness lock with its database session; taking it again`);
      this.lost();
      await this.release?.().catch(() => {
      });
      this.release = await this.database.holdRunLock(this.runId);
      this.held = true;
      this.lostAt = void 0;
      this.logger.info(`run ${this.runId} holds its liveness lock again`);
    } catch (error) {
      this.lost();
      this.logger.warn({ err: error }, `run ${this.runId}: liveness check failed: ${error.message}`);
    }
  }
};
async function recentlyBeating(database, runIds) {
  if (runIds.length === 0)
    return /* @__PURE__ */ new Set();
  const found = await rows(database.db, sql`select run_id from purchase_runs
        where run_id in (${sql.join(runIds.map((id) => sql`${id}`), sql`, `)})
          and heartbeat_at > now() - make_interval(secs => ${HEARTBEAT_GRACE_MS / 1e3})`);
  return new Set(found.map((r) => r.run_id));
}

// dist/purchases/ledger.js
var COMMITTED_STATES = [
  "submitting",
  "submitted",
  "succeeded",
  "unverified",
  "in_doubt"
];
var COLUMN_TYPES = {
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
  note: "text"
};
var COLUMNS = Object.keys(COLUMN_TYPES);
var COLUMN_SHAPE = sql.raw(COLUMNS.map((c) => `${c} ${COLUMN_TYPES[c]}`).join(", "));
var COLUMN_ASSIGNMENTS = sql.raw([
  ...COLUMNS.map((c) => `${c} = case when '${c}' = any(v.set_columns) then v.${c} else p.${c} end`),
  "answer_seq = case when v.answered then nextval('purchase_answer_seq') else p.answer_seq end"
].join(", "));
var COMMITTED_ARRAY = `{${COMMITTED_STATES.join(",")}}`;
function transitionStatement(payload, ids) {
  return sql`with v as (
      select * from json_to_recordset(${payload}::json) as v(id bigint, from_states text[], to_state text,
        actor text, event_reason text, event_response json, set_columns text[], answered boolean, ${COLUMN_SHAPE})
    ), old as (
      select p.id, p.state, coalesce(p.charged_amount, p.amount) as counted from purchases p
      where p.id = any(${ids}::bigint[]) order by p.id for update of p
    ), moved as (
      update purchases p set state = v.to_state, ${COLUMN_ASSIGNMENTS}, updated_at = now()
      from old join v on v.id = old.id where p.id = old.id and old.state = any(v.from_states)
      returning p.id, old.state as from_state, v.to_state, p.budget_day, p.answer_seq,
        case when old.state = any(${COMMITTED_ARRAY}::text[]) then coalesce(old.counted, 0) else 0 end as before,
        case when v.to_state = any(${COMMITTED_ARRAY}::text[]) then coalesce(p.charged_amount, p.amount, 0) else 0 end
          as after
    ), event as (
      insert into purchase_events (purchase_id, actor, from_state, to_state, reason, response)
      select moved.id, v.actor, moved.from_state, moved.to_state, v.event_reason, v.event_response
      from moved join v on v.id = moved.id
    ), budget as (
      update budget_days b set committed = b.committed + r.delta
      from (select budget_day, sum(after - before) as delta from moved
            where budget_day is not null and after <> before group by budget_day) r
      where b.day = r.budget_day
    )
    select id, from_state, answer_seq from moved`;
}
function payloadItem(item) {
  const set = item.set;
  return {
    id: item.id,
    from_states: item.from,
    to_state: item.to,
    actor: item.actor,
    event_reason: item.reason == null ? null : capText(item.reason),
    event_response: cappedResponse(item.response),
    set_columns: Object.keys(set),
    answered: item.answered === true,
    reference: param(set.reference),
    submitted_at: param(set.submitted_at),
    next_verify_at: param(set.next_verify_at),
    provider_status: param(typeof set.provider_status === "string" ? capText(set.provider_status) : set.provider_status),
    provider_message: param(set.provider_message),
    refund_amount: param(set.refund_amount),
    settled_at: param(set.settled_at),
    not_before: param(set.not_before),
    attempts: param(set.attempts),
    reason: param(set.reason),
    amount: param(set.amount),
    budget_day: param(set.budget_day),
    charged_amount: param(set.charged_amount),
    note: param(set.note)
  };
}
async function transitionMany(db, items) {
  if (items.length === 0)
    return [];
  const payload = JSON.stringify(items.map(payloadItem));
  const ids = idArray(items.map((item) => item.id));
  const result = await rows(db, transitionStatement(payload, ids));
  return result.map((row) => ({
    id: Number(row.id),
    from_state: row.from_state,
    answer_seq: row.answer_seq === null ? null : Number(row.answer_seq)
  }));
}
async function transition(target, id, from, to, set, event, answered = false) {
  const item = {
    id,
    from,
    to,
    set,
    actor: event.actor,
    reason: event.reason,
    response: event.response,
    answered
  };
  if ("move" in target)
    return target.move(item);
  const [moved] = await transitionMany(target, [item]);
  return moved;
}
function param(value) {
  return value instanceof Date ? value.toISOString() : value;
}
function idArray(ids) {
  return `{${ids.map((id) => Math.trunc(id)).join(",")}}`;
}
function markSubmitted(db, id, reference, nextVerifyAt, event, charged = { amount: null, note: null }) {
  return transition(db, id, ["submitting", "in_doubt"], "submitted", {
    reference,
    submitted_at: /* @__PURE__ */ new Date(),
    next_verify_at: nextVerifyAt,
    provider_status: "submitted",
    ...charged.amount ? { charged_amount: charged.amount } : {},
    ...charged.note ? { note: charged.note } : {}
  }, event, true);
}
function markFailed(db, id, from, details, event) {
  return transition(db, id, from, "failed", {
    provider_message: details.message.slice(0, 1e3),
    provider_status: details.providerStatus ?? null,
    refund_amount: details.refund ?? null,
    settled_at: /* @__PURE__ */ new Date(),
    next_verify_at: null
  }, event);
}
function requeueForRetry(db, id, notBefore, event) {
  return transition(db, id, ["submitting"], "queued", { not_before: notBefore }, event);
}
function returnUnsent(db, id, attempts, event) {
  return transition(db, id, ["submitting"], "queued", { not_before: /* @__PURE__ */ new Date(), attempts }, event);
}
function rejectUnsent(db, id, reason, event) {
  return transition(db, id, ["submitting"], "rejected", { reason, settled_at: /* @__PURE__ */ new Date() }, event);
}
async function returnUnclaimedSubmitting(db, runId, known, event) {
  const found = await rows(db, sql`select id, attempts from purchases where state = 'submitting' and run_id = ${runId}
          and not (id = any(${idArray(known)}::bigint[]))`);
  const moved = await transitionMany(db, found.map((row) => ({
    id: Number(row.id),
    from: ["submitting"],
    to: "queued",
    set: { not_before: /* @__PURE__ */ new Date(), attempts: Math.max(0, row.attempts - 1) },
    actor: event.actor,
    reason: event.reason
  })));
  return moved.length;
}
function markInDoubt(db, id, event) {
  return transition(db, id, ["submitting"], "in_doubt", { next_verify_at: null }, event);
}
function markSucceeded(db, id, from, providerStatus, event) {
  return transition(db, id, from, "succeeded", { provider_status: providerStatus, settled_at: /* @__PURE__ */ new Date(), next_verify_at: null }, event);
}
function markUnverified(db, id, nextVerifyAt, event) {
  return transition(db, id, ["submitted"], "unverified", { next_verify_at: nextVerifyAt }, event);
}
function markVerifyMismatch(db, id, note, event) {
  return transition(db, id, ["submitted", "unverified"], "unverified", { next_verify_at: null, note }, event);
}
async function postponeVerify(db, id, nextVerifyAt, providerStatus) {
  await rows(db, sql`update purchases set next_verify_at = ${param(nextVerifyAt)}, provider_status = coalesce(${providerStatus}, provider_status),
        verify_attempts = verify_attempts + 1, updated_at = now()
        where id = ${id} and state in ('submitted', 'unverified')`);
}
function settleInDoubtByProof(db, id, to, details, event, from = ["in_doubt"]) {
  return transition(db, id, from, to, {
    reference: details.reference,
    provider_status: details.providerStatus,
    ...to === "failed" ? { provider_message: (details.message ?? "").slice(0, 1e3), refund_amount: details.refund ?? null } : {},
    settled_at: /* @__PURE__ */ new Date(),
    next_verify_at: null
  }, event);
}
function resolveByPerson(db, id, to, set, event) {
  const extra = set.reference ? { reference: set.reference } : {};
  return transition(db, id, ["in_doubt", "unverified"], to, { ...extra, settled_at: /* @__PURE__ */ new Date(), next_verify_at: null }, event);
}
async function otherPurchaseWithReference(db, reference, id) {
  const [found] = await rows(db, sql`select id, state from purchases where reference = ${reference} and id <> ${id} order by id limit 1`);
  return found ? { id: Number(found.id), state: found.state } : void 0;
}
function requeueByPerson(db, id, event) {
  return transition(db, id, ["failed", "rejected"], "queued", {
    not_before: /* @__PURE__ */ new Date(),
    attempts: 0,
    reason: null,
    provider_message: null,
    amount: null,
    budget_day: null
  }, event);
}
function cancelByPerson(db, id, event) {
  return transition(db, id, ["queued"], "cancelled", { settled_at: /* @__PURE__ */ new Date() }, event);
}
async function sweepDeadSubmitting(database, actor) {
  const owners = await rows(database.db, sql`select run_id, count(*) as n from purchases where state = 'submitting' and run_id is not null group by run_id`);
  const unlocked = [];
  for (const owner of owners)
    if (!await database.isRunAlive(owner.run_id))
      unlocked.push(owner);
  const beating = await recentlyBeating(database, unlocked.map((o) => o.run_id));
  let swept = 0;
  let waiting = 0;
  for (const { run_id, n } of unlocked) {
    if (beating.has(run_id)) {
      waiting += Number(n);
      continue;
    }
    const moved = await rows(database.db, sql`with old as (
            select id from purchases where state = 'submitting' and run_id = ${run_id} for update skip locked
          ), moved as (
            update purchases p set state = 'in_doubt', updated_at = now() from old where p.id = old.id returning p.id
          ), event as (
            insert into purchase_events (purchase_id, actor, from_state, to_state, reason)
            select id, ${actor}, 'submitting', 'in_doubt',
              'found in submitting after its run stopped during the purchase call, so its outcome is unknown'
            from moved
          )
          select id from moved`);
    swept += moved.length;
  }
  return { swept, waiting };
}
async function insertPurchases(db, rowsToInsert, actor, reason = "accepted") {
  if (rowsToInsert.length === 0)
    return 0;
  const payload = JSON.stringify(rowsToInsert.map((r) => ({
    ...r,
    fire_time: r.fire_time?.toISOString() ?? null,
    not_before: (r.not_before ?? /* @__PURE__ */ new Date()).toISOString(),
    ported: r.ported ?? false,
    max_attempts: r.max_attempts ?? 5
  })));
  const inserted = await rows(db, sql`with x as (
          select * from jsonb_to_recordset(${payload}::jsonb) as x(
            request_key text, source text, job_name text, fire_time timestamptz, network text, plan_id text,
            plan_selector jsonb, phone text, ported boolean, max_price numeric, max_attempts integer,
            not_before timestamptz, requested_by text)
        ), inserted as (
          insert into purchases (request_key, source, job_name, fire_time, network, plan_id, plan_selector, phone, ported,
            max_price, max_attempts, not_before, requested_by)
          select request_key, source, job_name, fire_time, network, plan_id, plan_selector, phone, ported,
            max_price, max_attempts, not_before, requested_by from x
          on conflict (request_key) do nothing
          returning id
        ), events as (
          insert into purchase_events (purchase_id, actor, to_state, reason)
          select id, ${actor}, 'queued', ${reason} from inserted
        )
        select count(*)::int as n from inserted`);
  return inserted[0]?.n ?? 0;
}

export {
  capText,
  HEARTBEAT_MS,
  HEARTBEAT_GRACE_MS,
  RunLiveness,
  transitionMany,
  idArray,
  markSubmitted,
  markFailed,
  requeueForRetry,
  returnUnsent,
  rejectUnsent,
  returnUnclaimedSubmitting,
  markInDoubt,
  markSucceeded,
  markUnverified,
  markVerifyMismatch,
  postponeVerify,
  settleInDoubtByProof,
  resolveByPerson,
  otherPurchaseWithReference,
  requeueByPerson,
  cancelByPerson,
  sweepDeadSubmitting,
  insertPurchases
};
