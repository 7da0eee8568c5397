// The ledger rows of saved plans and of the approval gate: each move is one statement naming the states it expects,
// setting `approval` (what lets a run buy the row) and appending the event. None of these states counts against a
// budget (queued, held, cancelled), so no budget row changes.
import { type SQL, sql } from "drizzle-orm";
import { type Db, type Executor, rows } from "../db/client.js";
import type { PurchaseState } from "../db/schema.js";
import { planNotices } from "../notify/outbox/write.js";

/** A plan's purchase as the ledger takes it: the planned price is its `max_price` (never bought above it). */
export interface PlanRow {
  request_key: string;
  source: string;
  job_name: string | null;
  fire_time: string | null;
  network: string;
  plan_id: string;
  phone: string;
  ported: boolean;
  price: string;
  max_attempts: number;
}

export function planTag(planId: string): string {
  return `plan:${planId}`;
}

/**
 * The plan, locked against an expiry (or a rejection) for as long as the statement that takes purchases into it runs,
 * when it is still open: a statement taking purchases into a plan that ended takes none, and an expiry waiting on
 * the lock sees the purchases taken (expireDuePlans), so none is left queued under a plan that ended.
 */
function openPlanLock(planId: string): SQL {
  return sql`select id from saved_plans where id = ${planId}
    and status in ('pending_approval', 'approved', 'applying') for share`;
}

/**
 * Queues a plan's purchases under their own request keys, covered by the plan; a key the ledger has (or pruned)
 * is left alone, and so is every key when the plan is no longer open (expired, rejected). Returns how many were new.
 */
export async function insertPlanRows(
  db: Executor,
  planId: string,
  planRows: readonly PlanRow[],
  actor: string,
): Promise<number> {
  if (planRows.length === 0) return 0;
  const [inserted] = await rows<{ n: number }>(
    db,
    sql`with open_plan as (${openPlanLock(planId)}), x as (
          select * from json_to_recordset(${JSON.stringify(planRows)}::json) as x(request_key text, source text,
            job_name text, fire_time timestamptz, network text, plan_id text, phone text, ported boolean,
            price numeric, max_attempts integer)
        ), inserted as (
          insert into purchases (request_key, source, job_name, fire_time, network, plan_id, phone, ported, max_price,
            max_attempts, not_before, requested_by, approval)
          select request_key, source, job_name, fire_time, network, plan_id, phone, ported, price, max_attempts, now(),
            ${planTag(planId)}, ${planTag(planId)} from x
          where not exists (select 1 from pruned_purchases k where k.request_key = x.request_key)
            and exists (select 1 from open_plan)
          on conflict (request_key) do nothing
          returning id
        ), events as (
          insert into purchase_events (purchase_id, actor, to_state, reason)
          select id, ${actor}, 'queued', ${`accepted from saved plan ${planId}`} from inserted
        )
        select count(*)::int as n from inserted`,
  );
  return inserted?.n ?? 0;
}

/**
 * Queued rows of these keys that no plan covers yet (a `--queued` plan's items) are taken into the plan: covered by
 * it, and never bought above its planned price nor as another plan than the item's (a selector is not resolved
 * again). `id` is the row the caller found to be the item (stale.ts): another row of the key is not taken. Returns
 * how many.
 */
export async function adoptIntoPlan(
  db: Executor,
  planId: string,
  items: ReadonlyArray<{ id: number; request_key: string; price: string; plan_id: string }>,
  actor: string,
): Promise<number> {
  if (items.length === 0) return 0;
  const [moved] = await rows<{ n: number }>(
    db,
    sql`with open_plan as (${openPlanLock(planId)}), x as (
          select * from json_to_recordset(${JSON.stringify(items)}::json) as x(id bigint, request_key text,
            price numeric, plan_id text)
        ), moved as (
          update purchases p set approval = ${planTag(planId)}, plan_id = x.plan_id,
            max_price = least(coalesce(p.max_price, x.price), x.price), updated_at = now()
          from x where p.id = x.id and p.request_key = x.request_key and p.state = 'queued'
            and (p.approval is null or p.approval like 'run:%') and exists (select 1 from open_plan)
          returning p.id, p.max_price
        ), events as (
          insert into purchase_events (purchase_id, actor, from_state, to_state, reason)
          select id, ${actor}, 'queued', 'queued', 'taken into saved plan ' || ${planId} || ', at most ' || max_price
          from moved
        )
        select count(*)::int as n from moved`,
  );
  return moved?.n ?? 0;
}

export interface KeyedRow {
  request_key: string;
  id: number;
  state: PurchaseState;
  approval: string | null;
  pruned: boolean;
  /** What the row would buy (null for a pruned row): a plan may take a queued row only when it is the plan's item. */
  network: string | null;
  plan_id: string | null;
  plan_selector: unknown;
  phone: string | null;
  ported: boolean | null;
}

/** The ledger's rows of these keys (pruned ones too), in one statement. */
export async function rowsByKey(db: Executor, keys: readonly string[]): Promise<Map<string, KeyedRow>> {
  const found = new Map<string, KeyedRow>();
  if (keys.length === 0) return found;
  const list = JSON.stringify(keys);
  const hit = await rows<Omit<KeyedRow, "id"> & { id: string | number }>(
    db,
    sql`with k as (select json_array_elements_text(${list}::json) as request_key)
        select p.request_key, p.id, p.state, p.approval, false as pruned, p.network, p.plan_id, p.plan_selector,
          p.phone, p.ported
        from purchases p join k using (request_key)
        union all
        select d.request_key, d.purchase_id, d.state, null, true, null, null, null, null, null
        from pruned_purchases d join k using (request_key)`,
  );
  for (const row of hit) found.set(row.request_key, { ...row, id: Number(row.id) });
  return found;
}

/** How many rows of a plan are in each state. */
export async function planRowStates(db: Executor, planId: string): Promise<Map<PurchaseState, number>> {
  const found = await rows<{ state: PurchaseState; n: number }>(
    db,
    sql`select state, count(*)::int as n from purchases where approval = ${planTag(planId)} group by state`,
  );
  return new Map(found.map((r) => [r.state, r.n]));
}

/**
 * The approval gate weighs a run's new rows a page at a time, keeping what it decided of each in a table of the
 * transaction's own (dropped at its end) rather than in memory: the row's id, request key, the price it would be
 * bought at and its plan item as canonical JSON text (null: the claim will reject it with its reason). `ord` keeps
 * the order the rows were found in.
 */
export const GATED = "gated_rows";

export async function createGatedTable(db: Executor): Promise<void> {
  await rows(
    db,
    sql`create temporary table ${sql.raw(GATED)} (id bigint primary key, ord bigint not null,
          request_key text collate "C" not null, price numeric(14,2), item text) on commit drop`,
  );
}

export interface GatedRow {
  id: number;
  ord: number;
  request_key: string;
  price: string | null;
  item: string | null;
}

export async function addGated(db: Executor, page: readonly GatedRow[]): Promise<void> {
  if (page.length === 0) return;
  await rows(
    db,
    sql`insert into ${sql.raw(GATED)} (id, ord, request_key, price, item)
        select id, ord, request_key, price, item from json_to_recordset(${JSON.stringify(page)}::json)
          as x(id bigint, ord bigint, request_key text, price numeric, item text)`,
  );
}

/** The gate's priced items in request key order, a page after `after` (their digest is computed in that order). */
export async function gatedItemsByKey(
  db: Executor,
  after: string | null,
  limit: number,
): Promise<Array<{ request_key: string; item: string }>> {
  return rows(
    db,
    sql`select request_key, item from ${sql.raw(GATED)}
        where item is not null ${after === null ? sql`` : sql`and request_key > ${after}`}
        order by request_key limit ${limit}`,
  );
}

/** The gate's priced items as a JSON array text, in the order they were found: built by the database, not here. */
export function gatedItemsJsonSql(): SQL {
  return sql`'[' || coalesce((select string_agg(item, ',' order by ord) from ${sql.raw(GATED)}
    where item is not null), '') || ']'`;
}

/**
 * The gate let the run's rows through (`all`), or only those the claim will reject (`refused`, which cost nothing),
 * for this run. Returns how many.
 */
export async function clearGated(db: Executor, which: "all" | "refused", runId: string): Promise<number> {
  const [moved] = await rows<{ n: number }>(
    db,
    sql`with moved as (
          update purchases p set approval = ${`run:${runId}`} from ${sql.raw(GATED)} g
          where p.id = g.id ${which === "refused" ? sql`and g.item is null` : sql``}
            and p.state = 'queued' and p.approval is null returning p.id
        ) select count(*)::int as n from moved`,
  );
  return moved?.n ?? 0;
}

/**
 * The run's priced rows wait for approval: queued → held, covered by the saved plan registered for them, each never
 * to be bought above the price it was held at (`max_price`, which a release keeps) and only as the plan it was priced
 * at (`plan_id`: a selector is not resolved again when the row is released, so a plan listed cheaper meanwhile is not
 * bought in place of the one approved). Returns how many moved.
 */
export async function holdGated(
  db: Executor,
  planId: string,
  event: { actor: string; reason: string },
): Promise<number> {
  const [moved] = await rows<{ n: number }>(
    db,
    sql`with moved as (
          update purchases p set state = 'held', approval = ${planTag(planId)}, updated_at = now(),
            max_price = least(coalesce(p.max_price, g.price), g.price), plan_id = g.item::json->>'plan_id'
          from ${sql.raw(GATED)} g
          where p.id = g.id and g.item is not null and p.state = 'queued' and p.approval is null returning p.id
        ), events as (
          insert into purchase_events (purchase_id, actor, from_state, to_state, reason)
          select id, ${event.actor}, 'queued', 'held', ${event.reason} from moved
        )
        select count(*)::int as n from moved`,
  );
  return moved?.n ?? 0;
}

/**
 * An approved held plan's rows go back to the queue at the prices they were held at (their `max_price`), all in one
 * statement, whatever their number. Returns how many.
 */
export async function releaseHeldPlan(
  db: Executor,
  planId: string,
  event: { actor: string; reason: string },
): Promise<number> {
  const [moved] = await rows<{ n: number }>(
    db,
    sql`with moved as (
          update purchases p set state = 'queued', not_before = now(), updated_at = now()
          where p.approval = ${planTag(planId)} and p.state = 'held'
          returning p.id
        ), events as (
          insert into purchase_events (purchase_id, actor, from_state, to_state, reason)
          select id, ${event.actor}, 'held', 'queued', ${event.reason} from moved
        )
        select count(*)::int as n from moved`,
  );
  return moved?.n ?? 0;
}

/**
 * An approved plan's held rows go back to the queue, each never to be bought above its planned price (`caps`:
 * request key → price). Returns how many.
 */
export async function releaseHeld(
  db: Executor,
  planId: string,
  caps: ReadonlyArray<{ request_key: string; price: string }>,
  event: { actor: string; reason: string },
): Promise<number> {
  if (caps.length === 0) return 0;
  const [moved] = await rows<{ n: number }>(
    db,
    sql`with x as (
          select * from json_to_recordset(${JSON.stringify(caps)}::json) as x(request_key text, price numeric)
        ), moved as (
          update purchases p set state = 'queued', not_before = now(), updated_at = now(),
            max_price = least(coalesce(p.max_price, x.price), x.price)
          from x where p.request_key = x.request_key and p.state = 'held' and p.approval = ${planTag(planId)}
          returning p.id
        ), events as (
          insert into purchase_events (purchase_id, actor, from_state, to_state, reason)
          select id, ${event.actor}, 'held', 'queued', ${event.reason} from moved
        )
        select count(*)::int as n from moved`,
  );
  return moved?.n ?? 0;
}

/** A plan that ended unapproved (expired, rejected) cancels what it held, with the reason. Returns how many. */
export async function cancelHeld(
  db: Executor,
  planId: string,
  event: { actor: string; reason: string },
): Promise<number> {
  const [moved] = await rows<{ n: number }>(
    db,
    sql`with moved as (
          update purchases set state = 'cancelled', reason = ${event.reason}, settled_at = now(), updated_at = now()
          where approval = ${planTag(planId)} and state = 'held' returning id
        ), events as (
          insert into purchase_events (purchase_id, actor, from_state, to_state, reason)
          select id, ${event.actor}, 'held', 'cancelled', ${event.reason} from moved
        )
        select count(*)::int as n from moved`,
  );
  return moved?.n ?? 0;
}

/** What an expiry pass ended: each plan, and how many of its purchases it cancelled. */
export interface ExpiredPlans {
  plans: Array<{ id: string; origin: "saved" | "held" }>;
  cancelled: number;
}

/**
 * Plans whose time is up (open, `expires_at` passed) end, in one transaction: each becomes `expired` (its
 * reservation ends; its `plan_expired` notification is written by the same statement), and the purchases it never
 * sent — held for an approval that did not come, or left queued by an apply or a release that did not finish (a retry
 * after a 429, an apply cut short) — are cancelled with the reason `approval_expired`. Whatever bought them stays
 * bought. Every caller passes here (a purchase run with or without approval rules, apply, approve, the gate), so a
 * plan's status is true as soon as anything looks at its time; replicas racing here end each plan once (the status
 * update names the open statuses, and the loser's re-check finds the plan expired).
 *
 * The purchases of the due plans are locked first, then the plans (the order a person's cancel and the gate take
 * them); the purchases are cancelled by a later statement, whose snapshot sees every purchase a plan took before it
 * was marked (a plan's purchases are queued under a lock of its row, and only while it is open: insertPlanRows,
 * adoptIntoPlan), so none is left queued under a plan that ended, and the next pass reads only plans still open
 * (`saved_plans_open`), not every plan that ever expired.
 */
export async function expireDuePlans(db: Db, now: Date, actor: string): Promise<ExpiredPlans> {
  const at = now.toISOString();
  // Most passes find nothing due: one read (of the open plans' index) and no transaction then.
  const [due] = await rows<{ id: string }>(
    db,
    sql`select id from saved_plans
        where status in ('pending_approval', 'approved', 'applying') and expires_at <= ${at}::timestamptz limit 1`,
  );
  if (!due) return { plans: [], cancelled: 0 };
  return db.transaction(async (txn) => {
    const tx = txn as unknown as Db;
    await rows(
      tx,
      sql`select p.id from purchases p join saved_plans s on p.approval = 'plan:' || s.id
          where s.status in ('pending_approval', 'approved', 'applying') and s.expires_at <= ${at}::timestamptz
            and p.approval like 'plan:%' and p.state in ('held', 'queued')
          order by p.id
          for update of p`,
    );
    const plans = await rows<{ id: string; origin: "saved" | "held" }>(
      tx,
      sql`with expired as (
            update saved_plans set status = 'expired', reserved = 0, ended_at = ${at}::timestamptz,
              reason = 'not applied before ' || to_char(expires_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
            where status in ('pending_approval', 'approved', 'applying') and expires_at <= ${at}::timestamptz
            returning id, kind, origin, author, total, items, approvals_required, expires_at
          ), notice as (${planNotices("plan_expired", sql`select * from expired`)})
          select id, origin from expired order by id`,
    );
    if (plans.length === 0) return { plans, cancelled: 0 };
    const tags = JSON.stringify(plans.map((plan) => planTag(plan.id)));
    const [moved] = await rows<{ n: number }>(
      tx,
      sql`with was as (
            select p.id, p.state from purchases p
            where p.approval in (select json_array_elements_text(${tags}::json))
              and p.approval like 'plan:%' and p.state in ('held', 'queued')
            order by p.id
            for update of p
          ), moved as (
            update purchases p set state = 'cancelled', settled_at = now(), updated_at = now(),
              reason = 'approval_expired: saved plan ' || substr(p.approval, 6) || ' was not approved and applied in time'
            from was where p.id = was.id and p.state = was.state
            returning p.id, was.state, p.reason
          ), events as (
            insert into purchase_events (purchase_id, actor, from_state, to_state, reason)
            select id, ${actor}, state, 'cancelled', reason from moved
          )
          select count(*)::int as n from moved`,
    );
    return { plans, cancelled: moved?.n ?? 0 };
  });
}
