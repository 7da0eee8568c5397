// The outbox writer: the statements and statement parts that put a notification in the outbox in the same
// statement or transaction as the ledger change that causes it. A leaf: it knows tables, not config, rules or
// channels. Every insert skips a key already written (trigger, subject, episode), so a replica, a retry or a
// restart writing the same event again adds nothing, and a rolled-back change leaves nothing to send.
import { type SQL, sql } from "drizzle-orm";
import { type Executor, rows } from "../../db/client.js";
import { mayHoldUnstorable, storable } from "../../text/storable.js";
import type { NoticeKind, Trigger } from "./triggers.js";

/** The most characters of a reason or note a notification carries (the ledger keeps the whole text). */
const TEXT_CAP = 300;

/** A phone as `maskPhone` (src/log/mask.ts) shows it, in SQL: "08031234567" → "0803****567". */
export function maskedPhoneSql(phone: SQL): SQL {
  return sql`case when ${phone} ~ '^0[0-9]{10}$' then left(${phone}, 4) || '****' || right(${phone}, 3)
    when length(${phone}) <= 7 then repeat('*', length(${phone}))
    else left(${phone}, 4) || repeat('*', length(${phone}) - 7) || right(${phone}, 3) end`;
}

/**
 * The outbox rows of purchase transitions, as the body of a CTE in the statement that moves them. `moves` yields,
 * per moved purchase, `event_id, purchase_id, from_state, to_state, reason, note, reference, charged` (the note,
 * reference and charge this transition sets, or null); what a transition does not change (phone, network, plan,
 * job, listed amount, an earlier note) is read from `purchases` as the statement found it.
 *
 * - entering in_doubt or unverified opens that episode (a verify disagreement opens `verify_mismatch` instead of
 *   `unverified`; a `reference_clash` says so in its note); its episode is the event that moved it;
 * - a note `price_mismatch: …`, `verify_mismatch: …`, `reversed: …`, `delivered_after_failure: …` or
 *   `earlier_attempt_delivered: …` set by the transition opens that trigger's episode (the last names the earlier
 *   attempt's reference and charge as `reference` and `charged`);
 * - leaving in_doubt or unverified for a settled (or answered) state writes a `resolved` row of that trigger,
 *   which only rules with `send_resolved` send.
 */
export function purchaseNotices(moves: SQL): SQL {
  return sql`insert into notification_outbox (trigger, subject, episode, kind, facts)
    select n.trigger, 'purchase:' || e.purchase_id,
      case n.kind when 'open' then 'e' || e.event_id else n.kind || ':e' || e.event_id end, n.kind,
      jsonb_build_object('purchase', e.purchase_id, 'phone', ${maskedPhoneSql(sql`p.phone`)},
        'network', p.network, 'plan', coalesce(p.plan_name, p.plan_id), 'job', p.job_name,
        'amount', coalesce(e.charged, p.charged_amount, p.amount)::text, 'state', e.to_state, 'from', e.from_state,
        'reason', left(e.reason, ${TEXT_CAP}), 'reference', coalesce(e.reference, p.reference),
        'note', left(coalesce(e.note, p.note), ${TEXT_CAP}))
    from (${moves}) e
    join purchases p on p.id = e.purchase_id
    cross join lateral (values
      (case when e.note like 'verify_mismatch%' then 'verify_mismatch'
            when e.note like 'price_mismatch%' then 'price_mismatch'
            when e.note like 'reversed%' then 'reversed'
            when e.note like 'delivered_after_failure%' then 'delivered_after_failure'
            when e.note like 'earlier_attempt_delivered%' then 'earlier_attempt_delivered' end, 'open'),
      (case when e.to_state in ('in_doubt', 'unverified') and e.from_state is distinct from e.to_state
              and coalesce(e.note, '') not like 'verify_mismatch%' then e.to_state end, 'open'),
      (case when e.from_state in ('in_doubt', 'unverified') and e.to_state not in ('in_doubt', 'unverified') then
         case when e.from_state = 'unverified' and p.note like 'verify_mismatch%' then 'verify_mismatch'
              else e.from_state end end, 'resolved')
    ) n(trigger, kind)
    where n.trigger is not null
    on conflict (trigger, subject, episode) do nothing`;
}

export interface Notice {
  trigger: Trigger;
  subject: string;
  episode: string;
  kind?: NoticeKind;
  facts: Record<string, unknown>;
}

/** Writes notifications (one statement); returns how many were new. Call it inside the change's transaction. */
export async function writeNotices(db: Executor, notices: readonly Notice[]): Promise<number> {
  if (notices.length === 0) return 0;
  const written = await rows<{ n: number }>(db, noticesStatement(notices));
  return Number(written[0]?.n ?? 0);
}

/** The insert of `writeNotices`, for a caller that runs it as a CTE of its own statement. */
export function noticesInsert(notices: readonly Notice[]): SQL {
  let payload = JSON.stringify(
    notices.map((n) => ({
      trigger: n.trigger,
      subject: n.subject,
      episode: n.episode,
      kind: n.kind ?? "open",
      facts: n.facts,
    })),
  );
  // PostgreSQL's JSON takes neither a NUL nor half of a surrogate pair: a reason cut through an emoji, or a
  // provider's text holding a NUL, failed the insert — and the statement it is part of (a website pass's record) —
  // and the notification was lost. Each is kept as U+FFFD.
  if (mayHoldUnstorable(payload)) payload = JSON.stringify(storable(JSON.parse(payload)));
  return sql`insert into notification_outbox (trigger, subject, episode, kind, facts)
    select trigger, subject, episode, kind, facts
    from jsonb_to_recordset(${payload}::jsonb) as x(trigger text, subject text, episode text, kind text, facts jsonb)
    on conflict (trigger, subject, episode) do nothing
    returning id`;
}

function noticesStatement(notices: readonly Notice[]): SQL {
  return sql`with written as (${noticesInsert(notices)}) select count(*)::int as n from written`;
}

/**
 * Budget thresholds crossed by a claim, as the body of a CTE in the claim's statement: `before` and `after` are
 * what the day had committed before and after it (SQL numerics), `refused` is true when the claim refused a
 * purchase for the daily budget (the budget is spent: the 100 % message, though no purchase could reach it).
 * One row per threshold per budget day, whatever the replicas.
 */
export function budgetNotices(options: {
  day: string;
  limit: string | null;
  thresholds: readonly number[];
  before: SQL;
  after: SQL;
  refused: SQL;
}): SQL {
  const thresholds = `{${options.thresholds.map((t) => Math.trunc(t)).join(",")}}`;
  return sql`insert into notification_outbox (trigger, subject, episode, kind, facts)
    select 'budget', 'budget_day:' || ${options.day}, t || '%', 'open',
      jsonb_build_object('day', ${options.day}::text, 'threshold', t, 'limit', ${options.limit}::numeric::text,
        'committed', (${options.after})::numeric::text, 'refused', (${options.refused}))
    from unnest(${thresholds}::int[]) t
    where ${options.limit}::numeric is not null and ${options.limit}::numeric > 0
      and (((${options.before}) < ${options.limit}::numeric * t / 100 and (${options.after}) >= ${options.limit}::numeric * t / 100)
        or (t = 100 and (${options.refused})))
    on conflict (trigger, subject, episode) do nothing`;
}

/** The kv row holding whether a wallet_low episode is open, and its number. */
export const WALLET_LOW_KEY = "notify:wallet_low";

/**
 * The wallet_low episode of a newly recorded balance, as CTEs to put after the one that records it (`recorded`
 * yields a row when the balance was recorded). Below `below` opens an episode unless one is open; above
 * `clearAbove` ends the open one (hysteresis: a balance bouncing around the floor sends one message). The kv row
 * is the episode's state, decided under its row lock, so replicas recording balances at once open it once.
 */
export function walletLowNotices(options: {
  recorded: SQL;
  balance: string;
  below: string;
  clearAbove: string;
}): SQL {
  const { balance, below, clearAbove } = options;
  const facts = sql`jsonb_build_object('balance', ${balance}::numeric::text, 'below', ${below}::numeric::text,
    'clear_above', ${clearAbove}::numeric::text)`;
  return sql`wallet_opened as (
      insert into kv (key, value, updated_at)
      select ${WALLET_LOW_KEY}, jsonb_build_object('open', true, 'episode', 1), now()
      where exists (${options.recorded}) and ${balance}::numeric < ${below}::numeric
      on conflict (key) do update set value = jsonb_build_object('open', true,
        'episode', coalesce((kv.value->>'episode')::int, 0) + 1), updated_at = now()
      where not coalesce((kv.value->>'open')::boolean, false)
      returning (value->>'episode')::int as episode
    ), wallet_cleared as (
      update kv set value = kv.value || '{"open": false}'::jsonb, updated_at = now()
      where kv.key = ${WALLET_LOW_KEY} and exists (${options.recorded}) and ${balance}::numeric > ${clearAbove}::numeric
        and coalesce((kv.value->>'open')::boolean, false)
      returning (value->>'episode')::int as episode
    ), wallet_notice as (
      insert into notification_outbox (trigger, subject, episode, kind, facts)
      select 'wallet_low', 'wallet', 'episode:' || episode, 'open', ${facts} from wallet_opened
      union all
      select 'wallet_low', 'wallet', 'resolved:episode:' || episode, 'resolved', ${facts} from wallet_cleared
      on conflict (trigger, subject, episode) do nothing
    )`;
}

/**
 * The `missed_fire` rows of fires recorded as skipped, as the body of a CTE after the insert that records them:
 * `inserted` yields `fire_key, job_name, fire_time, reason` of the fires newly recorded. One per fire.
 */
export function missedFireNotices(inserted: SQL): SQL {
  return sql`insert into notification_outbox (trigger, subject, episode, kind, facts)
    select 'missed_fire', 'fire:' || i.fire_key, 'skipped', 'open',
      jsonb_build_object('job', i.job_name, 'fire_time', i.fire_time, 'reason', left(i.reason, ${TEXT_CAP}))
    from (${inserted}) i
    on conflict (trigger, subject, episode) do nothing`;
}

/** Saved plans' triggers, each told once per plan. */
export type PlanTrigger = "approval_needed" | "approval_expiring" | "plan_expired";

/**
 * The outbox rows of saved plans, as the body of a CTE in the statement that registers, finds expiring or expires
 * them: `plans` yields `id, kind, origin, author, total, items, approvals_required, expires_at` of saved_plans rows.
 */
export function planNotices(trigger: PlanTrigger, plans: SQL): SQL {
  return sql`insert into notification_outbox (trigger, subject, episode, kind, facts)
    select ${trigger}, 'plan:' || x.id, ${trigger}, 'open',
      jsonb_build_object('plan', x.id, 'kind', x.kind, 'origin', x.origin, 'author', x.author,
        'amount', x.total::numeric::text, 'items', x.items, 'approvals_required', x.approvals_required,
        'expires_at', x.expires_at)
    from (${plans}) x
    on conflict (trigger, subject, episode) do nothing`;
}

/**
 * The `run_failed` rows of jobs paused by their `pause_on`, as the body of a CTE in the statement that pauses
 * them: `paused` yields `id, job_name, reason, run` (the job event, the note naming the cause, the run that saw it).
 */
export function jobPauseNotices(paused: SQL): SQL {
  return sql`insert into notification_outbox (trigger, subject, episode, kind, facts)
    select 'run_failed', 'job:' || x.job_name, 'paused:' || x.id, 'open',
      jsonb_build_object('run', x.run, 'job', x.job_name,
        'reason', left('job paused: ' || x.reason, ${TEXT_CAP}), 'paused', true)
    from (${paused}) x
    on conflict (trigger, subject, episode) do nothing`;
}
