// The SQL that writes a year of ledger for `bench:ledger-year`: purchases with their events, a day of the
// period per statement, then the tables that go with them (budget days, schedule fires, jobs, website passes, the
// wallet). Deterministic: row g's source, job, network, plan, state and times are hashes of g.

/** Jobs of the synthetic operator: name, network, plan, and how often the job fires (minutes). */
export const JOBS = [
  ["staff-monthly", "1", "102", 1440],
  ["promo-daily", "1", "101", 1440],
  ["airtel-daily", "4", "404", 1440],
  ["glo-halfday", "2", "203", 720],
  ["retention-6h", "1", "103", 360],
  ["topup-hourly", "1", "102", 60],
  ["airtel-hourly", "4", "403", 60],
  ["flash-30m", "1", "106", 30],
  ["t2-15m", "3", "302", 15],
  ["glo-3h", "2", "202", 180],
];

const PLANS = `(values
  ('1', 'MTN', '0803', '101', '500MB for 30 Days', 168.00), ('1', 'MTN', '0803', '102', '1GB for 30 Days', 305.00),
  ('1', 'MTN', '0803', '103', '2GB for 30 Days', 580.00), ('1', 'MTN', '0803', '106', '500MB SME 30 Days', 140.00),
  ('2', 'GLO', '0805', '202', '500MB for 30 Days', 235.00), ('2', 'GLO', '0805', '203', '1GB for 30 Days', 465.00),
  ('3', '9MOBILE', '0809', '302', '1GB for 30 Days', 330.00), ('4', 'AIRTEL', '0802', '403', '500MB for 7 Days', 505.00),
  ('4', 'AIRTEL', '0802', '404', '1GB for 7 Days', 822.00)) as plan(network_id, network, prefix, plan_id, plan_name, price)`;

const JOB_VALUES = `(values ${JOBS.map(([name, network, plan, minutes], i) => `(${i}, '${name}', '${network}', '${plan}', ${minutes})`).join(", ")}) as job(n, name, network_id, plan_id, minutes)`;

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/**
 * One chunk of purchases, rows $1..$2 (bigint g), created evenly over [$3, $3 + $4 seconds), with their events.
 * Mix: 92.5% succeeded (a third with the charged amount recorded, one in 20,000 overcharged with a
 * price_mismatch note), 4% failed (half at the POST, half reversed after it with a refund), 2.5% rejected,
 * 1% cancelled, 2 in 100,000 in_doubt and 3 in 100,000 unverified; the last $5 rows queued for 30 days from now.
 * Sources: 70% the ten jobs, 20% intake, 10% `topsync buy`. Three events a purchase (two when never sent).
 */
export const SEED_CHUNK = `
with x as (
  select g, $3::timestamptz + (g - $1 + 0.5) * ($4::float8 / ($2 - $1 + 1)) * interval '1 second' as created_at,
    abs(hashint8(g)) % 100000 as hs, abs(hashint8(g + 7777777777)) % 1000 as hk,
    abs(hashint8(g + 3333333333)) % 100000 as hl, g > $2 - $5 as pending
  from generate_series($1::bigint, $2::bigint) g
), y as (
  select x.*, case when hk < 700 then 'job' when hk < 900 then 'intake' else 'buy' end as source,
    case when pending then 'queued' when hs < 90000 then 'succeeded' when hs < 92000 then 'failed_post'
      when hs < 94000 then 'failed_verify' when hs < 96500 then 'rejected' when hs < 97500 then 'cancelled'
      when hs < 99995 then 'succeeded' when hs < 99997 then 'in_doubt' else 'unverified' end as fate
  from x
), z as (
  select y.*, job.name as job_name,
    to_timestamp(floor(extract(epoch from y.created_at) / (job.minutes * 60)) * job.minutes * 60) as fire_time,
    plan.*, plan.prefix || lpad((y.g % 3000000)::text, 7, '0') as phone
  from y
  left join ${JOB_VALUES} on y.source = 'job' and job.n = y.hk % 10
  join ${PLANS} on plan.plan_id = coalesce(job.plan_id,
    (array['101', '102', '102', '103', '106', '202', '203', '302', '403', '404'])[1 + y.hl % 10])
), w as (
  select z.*, fate in ('succeeded', 'failed_post', 'failed_verify', 'in_doubt', 'unverified') as sent,
    fate in ('succeeded', 'failed_verify', 'unverified') as answered,
    z.created_at + (200 + hl % 2800) * interval '1 millisecond' as sent_at,
    (1500 * exp(hl / 100000.0 * 3)) * interval '1 millisecond' as latency
  from z
), ins as (
  insert into purchases (request_key, source, job_name, fire_time, network, network_id, plan_id, plan_name, phone,
    amount, charged_amount, note, answer_seq, state, reason, not_before, attempts, reference, provider_status,
    provider_message, refund_amount, budget_day, run_id, requested_by, created_at, updated_at, submitted_at, settled_at)
  select
    case source when 'job' then 'job:' || job_name || ':' || to_char(fire_time at time zone 'UTC', ${ISO}) || ':' || phone
      when 'intake' then 'crm-order-' || g
      else 'buy:' || network_id || ':' || plan_id || ':' || phone || ':' || to_char(date_trunc('minute', created_at) at time zone 'UTC', ${ISO}) end,
    source, job_name, case when source = 'job' then fire_time end,
    case when source = 'intake' and hl % 3 = 0 then lower(network) else network end,
    case when sent then network_id end, plan_id, case when sent then plan_name end, phone,
    case when sent then price end,
    case when fate = 'succeeded' and hl % 20000 = 7 then price + 5 when fate = 'succeeded' and hl % 3 = 0 then price end,
    case when fate = 'succeeded' and hl % 20000 = 7
      then 'price_mismatch: the provider charged ' || (price + 5) || ', above the listed ' || price end,
    case when answered then g end,
    case fate when 'failed_post' then 'failed' when 'failed_verify' then 'failed' else fate end,
    case fate when 'rejected' then (array['daily_budget: daily budget: 49800.00 committed today + 305.00 > daily_limit 50000.00',
        'invalid_phone: 0800 is not a mobile number', 'price_above_max: the live price 330.00 is above max_price 300.00'])[1 + hl % 3]
      when 'cancelled' then 'cancelled by a person' end,
    case when pending then now() + interval '30 days' else created_at end,
    case when sent then 1 else 0 end,
    case when answered then upper(substr(md5(g::text), 1, 20)) end,
    case fate when 'succeeded' then 'success' when 'failed_verify' then 'reversed' when 'unverified' then 'pending' end,
    case fate when 'failed_post' then (array['Insufficient wallet balance', 'Invalid phone number 0803 ' || lpad((g % 1000)::text, 3, '0') || ' 4567',
        'Network is temporarily unavailable'])[1 + hl % 3]
      when 'failed_verify' then 'Transaction reversed by the network' end,
    case when fate = 'failed_verify' and hl % 2 = 0 then price end,
    case when sent then (sent_at at time zone 'Africa/Lagos')::date end,
    case when sent then 'run-' || (g / 5000) end,
    case source when 'intake' then 'crm' when 'buy' then 'ops@example.com' end,
    created_at,
    case when fate in ('succeeded', 'failed_verify') then sent_at + latency when sent then sent_at else created_at end,
    case when answered then sent_at end,
    case when fate in ('succeeded', 'failed_verify') then sent_at + latency when fate = 'failed_post' then sent_at
      when fate in ('rejected', 'cancelled') then created_at + interval '1 second' end
  from w
  returning id, state, created_at, submitted_at, settled_at, reference, provider_status, charged_amount, amount, phone
)
insert into purchase_events (purchase_id, at, actor, from_state, to_state, reason, response)
select ins.id, e.at, e.actor, e.from_state, e.to_state, e.reason, e.response
from ins cross join lateral (values
  (1, ins.created_at, 'daemon:seed', null, 'queued', 'accepted', null::json),
  (2, ins.created_at + interval '150 milliseconds', 'daemon:seed', 'queued',
    case when ins.state in ('rejected', 'cancelled') then ins.state else 'submitting' end,
    case when ins.state = 'rejected' then 'rejected by a guard' when ins.state = 'cancelled' then 'cancelled by a person'
      else 'attempt 1' end, null),
  (3, coalesce(ins.settled_at, ins.submitted_at, ins.created_at + interval '2 seconds'), 'daemon:seed', 'submitting',
    ins.state, case ins.state when 'succeeded' then 'verified: success' when 'failed' then 'the provider said no'
      when 'in_doubt' then 'the purchase call timed out: its outcome is unknown' else 'no final status in time' end,
    case when ins.reference is not null then json_build_object('status', true, 'data', json_build_object('transaction',
      json_build_object('reference', ins.reference, 'status', ins.provider_status,
        'amount', coalesce(ins.charged_amount, ins.amount)::text,
        'phone_number', left(ins.phone, 4) || '****' || right(ins.phone, 3)))) end)
) as e(n, at, actor, from_state, to_state, reason, response)
where e.n = 1 or (e.n = 2 and ins.state <> 'queued') or (e.n = 3 and ins.state not in ('queued', 'rejected', 'cancelled'))
`;

/**
 * Writes `purchases` purchases (and their events) created evenly over the `days` days up to now, with SEED_CHUNK:
 * a statement per day, two at a time over `sessions` (postgres.js clients of one connection each), the last
 * `queued` queued for later. Calls `onDay` with the number of days written; resolves to the first day's start (ms).
 */
export async function seedPurchases(sessions, { purchases, days, queued = 0, onDay = () => {} }) {
  const start = Date.now() - days * 86_400_000;
  const perDay = purchases / days;
  let next = 0;
  let done = 0;
  const worker = async () => {
    for (let day = next++; day < days; day = next++) {
      const final = day === days - 1;
      const first = Math.floor(day * perDay) + 1;
      const last = final ? purchases : Math.floor((day + 1) * perDay);
      const from = new Date(start + day * 86_400_000).toISOString();
      const seconds = final ? (Date.now() - 60_000 - Date.parse(from)) / 1000 : 86_400;
      await sessions[day % sessions.length].unsafe(SEED_CHUNK, [
        first,
        last,
        from,
        seconds,
        final ? queued : 0,
      ]);
      onDay(++done);
    }
  };
  await Promise.all([worker(), worker()]);
  return start;
}

/** What goes with the purchases: money committed per budget day, the wallet, the jobs and their fires. */
export const SEED_AFTER = [
  `insert into budget_days (day, committed)
   select budget_day, sum(coalesce(charged_amount, amount)) from purchases
   where state in ('submitting', 'submitted', 'succeeded', 'unverified', 'in_doubt') and budget_day is not null
   group by budget_day
   on conflict (day) do update set committed = excluded.committed`,
  `select setval('purchase_answer_seq', (select coalesce(max(answer_seq), 0) + 1 from purchases))`,
  `insert into kv (key, value) values ('wallet', jsonb_build_object('balance', '900000000.00',
     'seq', (select coalesce(max(answer_seq), 0) from purchases), 'as_of', now()))
   on conflict (key) do update set value = excluded.value`,
  `insert into jobs (name, first_seen) select name, $1::timestamptz from ${JOB_VALUES} on conflict do nothing`,
  `insert into schedule_fires (fire_key, job_name, fire_time, status, reason, claimed_by, created_at, finished_at)
   select 'job:' || job.name || ':' || to_char(t at time zone 'UTC', ${ISO}), job.name, t,
     case when abs(hashint8(extract(epoch from t)::bigint + job.n)) % 100 = 0 then 'failed'
          when abs(hashint8(extract(epoch from t)::bigint + job.n)) % 100 = 1 then 'skipped' else 'done' end,
     null, 'seed', t, t + interval '30 seconds'
   from ${JOB_VALUES}
   cross join lateral generate_series(
     to_timestamp(ceil(extract(epoch from $1::timestamptz) / (job.minutes * 60)) * job.minutes * 60),
     now() - interval '1 minute', job.minutes * interval '1 minute') t`,
  // A website pass every 10 minutes: most change nothing, one in 20 creates or updates, one in 100 fails.
  `insert into website_runs (started_at, finished_at, mode, status, created, updated, deleted, unchanged, errors, summary)
   select t, t + interval '4 seconds', 'apply',
     case when n % 100 = 0 then 'failed' else 'ok' end,
     case when n % 20 = 5 then 1 else 0 end, case when n % 20 = 10 then 1 else 0 end, 0, 40,
     case when n % 100 = 0 then '[{"domain":"*","action":"list","code":"HTTP_5XX","message":"listing failed"}]'::jsonb
       else '[]'::jsonb end,
     jsonb_build_object('planned', jsonb_build_object('create', case when n % 20 = 5 then 1 else 0 end,
       'update', case when n % 20 = 10 then 1 else 0 end, 'delete', 0, 'unchanged', 40, 'unmanaged', 2, 'conflicts', 0),
       'changes', case when n % 20 = 5 then '[{"action":"create","domain":"shop.example.org"}]'::jsonb
         when n % 20 = 10 then '[{"action":"update","domain":"blog.example.org"}]'::jsonb else '[]'::jsonb end)
   from (select t, row_number() over (order by t) as n
         from generate_series($1::timestamptz, now(), interval '10 minutes') t) passes`,
];
