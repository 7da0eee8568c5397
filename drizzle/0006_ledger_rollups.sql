CREATE TABLE "pruned_purchases" (
	"request_key" text PRIMARY KEY NOT NULL,
	"purchase_id" bigint NOT NULL,
	"state" text NOT NULL,
	"pruned_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "purchase_latency_rollups" (
	"bucket" timestamp with time zone NOT NULL,
	"latency_bucket" integer NOT NULL,
	"shard" smallint NOT NULL,
	"purchases" bigint DEFAULT 0 NOT NULL,
	"micros" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "purchase_latency_rollups_pkey" PRIMARY KEY("bucket","latency_bucket","shard")
);
--> statement-breakpoint
CREATE TABLE "purchase_rollups" (
	"bucket" timestamp with time zone NOT NULL,
	"state" text NOT NULL,
	"dims" text NOT NULL,
	"shard" smallint NOT NULL,
	"budget_day" text NOT NULL,
	"network_id" text NOT NULL,
	"network" text NOT NULL,
	"job" text NOT NULL,
	"message" text NOT NULL,
	"purchases" bigint DEFAULT 0 NOT NULL,
	"amount" numeric DEFAULT '0' NOT NULL,
	"refunded" numeric DEFAULT '0' NOT NULL,
	CONSTRAINT "purchase_rollups_pkey" PRIMARY KEY("bucket","state","dims","shard")
);
--> statement-breakpoint
CREATE TABLE "purchase_state_counts" (
	"state" text NOT NULL,
	"note_kind" text NOT NULL,
	"shard" smallint NOT NULL,
	"purchases" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "purchase_state_counts_pkey" PRIMARY KEY("state","note_kind","shard")
);
--> statement-breakpoint
CREATE TABLE "schedule_fire_counts" (
	"job_name" text NOT NULL,
	"status" text NOT NULL,
	"fires" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "schedule_fire_counts_pkey" PRIMARY KEY("job_name","status")
);
--> statement-breakpoint
CREATE INDEX "pruned_purchases_id" ON "pruned_purchases" USING btree ("purchase_id");--> statement-breakpoint
CREATE INDEX "purchase_latency_rollups_unfolded" ON "purchase_latency_rollups" USING btree ("bucket") WHERE shard >= 0;--> statement-breakpoint
CREATE INDEX "purchase_rollups_unfolded" ON "purchase_rollups" USING btree ("bucket") WHERE shard >= 0;--> statement-breakpoint
CREATE INDEX "website_runs_ok_finished" ON "website_runs" USING btree ("finished_at") WHERE status = 'ok';--> statement-breakpoint
-- Everything below is written by hand: what keeps the counters and rollups above equal to the ledger.
--
-- The failure message a report groups failed purchases by: the provider's message, or else the reason, with every
-- phone number in it (whole or masked, with spaces, dots or dashes as src/log/mask.ts reads them) as <phone>.
CREATE FUNCTION topsync_failure_message(provider_message text, reason text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  select regexp_replace(coalesce(nullif(provider_message, ''), reason, '(no message)'),
    '(\+?234[ .-]?(\(0\)[ .-]?|0[ .-]?)?|\(?0)[789][ .-]?[01][ .-]?[0-9*]\)?([ .-]?[0-9*]){7}', '<phone>', 'g')
$$;
--> statement-breakpoint
-- Which writer's share of a counter row a statement adds to (schema.ts).
CREATE FUNCTION topsync_shard() RETURNS smallint LANGUAGE sql STABLE PARALLEL SAFE AS $$
  select (pg_backend_pid() % 8)::smallint
$$;
--> statement-breakpoint
CREATE TYPE topsync_purchase_fact AS (
  bucket timestamptz, state text, dims text, budget_day text, network_id text, network text, job text, message text,
  note_kind text, amount numeric, refunded numeric, latency_bucket integer, latency_micros bigint
);
--> statement-breakpoint
-- What one purchase adds to the counters and rollups: its place in them and its amounts. The report reads the
-- purchases of a period's first, partial day through this same function, so both halves agree by construction.
-- Times are cut in UTC whatever the session's TimeZone, dates written whatever its DateStyle. A verification
-- latency falls in bucket 0 under 1 ms, else in bucket 1 + floor(log base 1.01 of the milliseconds). (`offset 0`
-- keeps each part computed once per purchase where the planner would copy it into every use.)
CREATE FUNCTION topsync_purchase_fact(p purchases) RETURNS SETOF topsync_purchase_fact
LANGUAGE sql STABLE AS $$
  select
    (case when s.sent and p.budget_day is null then date_trunc('minute', s.t at time zone 'UTC')
          else date_trunc('day', s.t at time zone 'UTC') end) at time zone 'UTC',
    p.state,
    encode(sha256(convert_to(json_build_array(d.budget_day, d.network_id, d.network, d.job, d.message)::text,
      'UTF8')), 'hex'),
    d.budget_day, d.network_id, d.network, d.job, d.message,
    coalesce(left(split_part(p.note, ':', 1), 100), ''),
    coalesce(p.charged_amount, p.amount, 0),
    case when p.state = 'failed' then coalesce(p.refund_amount, 0) else 0 end,
    case when l.micros is null then null when l.micros < 1000 then 0
         else 1 + floor(ln(l.micros / 1000.0::float8) / ln(1.01::float8))::integer end,
    l.micros
  from (select coalesce(p.submitted_at, p.created_at) as t,
          p.state in ('submitting', 'submitted', 'succeeded', 'failed', 'in_doubt', 'unverified') as sent offset 0) s
  cross join lateral (select
    case when s.sent then coalesce(to_char(p.budget_day, 'YYYY-MM-DD'), '') else '' end as budget_day,
    case when s.sent then coalesce(p.network_id, '') else '' end as network_id,
    case when s.sent then upper(p.network) else '' end as network,
    case when s.sent then coalesce(p.job_name, '(' || p.source || ')') else '' end as job,
    case when p.state = 'failed' then topsync_failure_message(p.provider_message, p.reason) else '' end as message
    offset 0) d
  cross join lateral (select
    case when p.state in ('succeeded', 'failed') and p.submitted_at is not null and p.settled_at >= p.submitted_at
      then (extract(epoch from (p.settled_at - p.submitted_at)) * 1000000)::bigint end as micros offset 0) l
$$;
--> statement-breakpoint
-- Adds `added` and takes away `removed` in one statement, into this session's shard. Rows are locked in key order
-- (counts, then rollups, then latencies), so two writers never wait on each other in a cycle.
CREATE FUNCTION topsync_count_purchases(added topsync_purchase_fact[], removed topsync_purchase_fact[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  WITH d AS (
    SELECT 1 AS sign, a.* FROM unnest(added) a UNION ALL SELECT -1, r.* FROM unnest(removed) r
  ), counts AS (
    INSERT INTO purchase_state_counts AS c (state, note_kind, shard, purchases)
    SELECT state, note_kind, topsync_shard(), sum(sign) FROM d GROUP BY state, note_kind
    HAVING sum(sign) <> 0 ORDER BY state, note_kind
    ON CONFLICT (state, note_kind, shard) DO UPDATE SET purchases = c.purchases + excluded.purchases
  ), rollups AS (
    INSERT INTO purchase_rollups AS r (bucket, state, dims, shard, budget_day, network_id, network, job, message,
      purchases, amount, refunded)
    SELECT bucket, state, dims, topsync_shard(), budget_day, network_id, network, job, message,
      sum(sign), sum(sign * amount), sum(sign * refunded)
    FROM d GROUP BY bucket, state, dims, budget_day, network_id, network, job, message
    HAVING sum(sign) <> 0 OR sum(sign * amount) <> 0 OR sum(sign * refunded) <> 0
    ORDER BY bucket, state, dims
    ON CONFLICT (bucket, state, dims, shard) DO UPDATE SET purchases = r.purchases + excluded.purchases,
      amount = r.amount + excluded.amount, refunded = r.refunded + excluded.refunded
  )
  INSERT INTO purchase_latency_rollups AS l (bucket, latency_bucket, shard, purchases, micros)
  SELECT bucket, latency_bucket, topsync_shard(), sum(sign), sum(sign * latency_micros)
  FROM d WHERE latency_micros IS NOT NULL GROUP BY bucket, latency_bucket
  HAVING sum(sign) <> 0 OR sum(sign * latency_micros) <> 0 ORDER BY bucket, latency_bucket
  ON CONFLICT (bucket, latency_bucket, shard) DO UPDATE SET purchases = l.purchases + excluded.purchases,
    micros = l.micros + excluded.micros;
END $$;
--> statement-breakpoint
-- One call per statement that changed purchases, whatever wrote it (topsync, a person with psql, a test).
CREATE FUNCTION topsync_purchases_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM topsync_count_purchases(array(SELECT f FROM new_rows p CROSS JOIN LATERAL topsync_purchase_fact(p) f), '{}');
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM topsync_count_purchases(array(SELECT f FROM new_rows p CROSS JOIN LATERAL topsync_purchase_fact(p) f),
      array(SELECT f FROM old_rows p CROSS JOIN LATERAL topsync_purchase_fact(p) f));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM topsync_count_purchases('{}', array(SELECT f FROM old_rows p CROSS JOIN LATERAL topsync_purchase_fact(p) f));
  ELSE
    DELETE FROM purchase_state_counts;
    DELETE FROM purchase_rollups;
    DELETE FROM purchase_latency_rollups;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- The triggers lock purchases against writers until this migration commits, so the backfill below counts every
-- purchase exactly once: written before it (counted here) or after it (counted by the triggers).
CREATE TRIGGER purchases_counted_insert AFTER INSERT ON purchases REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION topsync_purchases_changed();
--> statement-breakpoint
CREATE TRIGGER purchases_counted_update AFTER UPDATE ON purchases REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION topsync_purchases_changed();
--> statement-breakpoint
CREATE TRIGGER purchases_counted_delete AFTER DELETE ON purchases REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION topsync_purchases_changed();
--> statement-breakpoint
CREATE TRIGGER purchases_counted_truncate AFTER TRUNCATE ON purchases
  FOR EACH STATEMENT EXECUTE FUNCTION topsync_purchases_changed();
--> statement-breakpoint
INSERT INTO purchase_state_counts (state, note_kind, shard, purchases)
SELECT f.state, f.note_kind, 0, count(*) FROM purchases p CROSS JOIN LATERAL topsync_purchase_fact(p) f
GROUP BY f.state, f.note_kind;
--> statement-breakpoint
INSERT INTO purchase_rollups (bucket, state, dims, shard, budget_day, network_id, network, job, message, purchases,
  amount, refunded)
SELECT f.bucket, f.state, f.dims, 0, f.budget_day, f.network_id, f.network, f.job, f.message, count(*), sum(f.amount),
  sum(f.refunded)
FROM purchases p CROSS JOIN LATERAL topsync_purchase_fact(p) f
GROUP BY f.bucket, f.state, f.dims, f.budget_day, f.network_id, f.network, f.job, f.message;
--> statement-breakpoint
INSERT INTO purchase_latency_rollups (bucket, latency_bucket, shard, purchases, micros)
SELECT f.bucket, f.latency_bucket, 0, count(*), sum(f.latency_micros)
FROM purchases p CROSS JOIN LATERAL topsync_purchase_fact(p) f WHERE f.latency_micros IS NOT NULL
GROUP BY f.bucket, f.latency_bucket;
--> statement-breakpoint
-- Schedule fires by job and status, the same way (fires are few: one row for all writers).
CREATE FUNCTION topsync_count_fires(added schedule_fires[], removed schedule_fires[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO schedule_fire_counts AS c (job_name, status, fires)
  SELECT job_name, status, sum(sign) FROM (
    SELECT 1 AS sign, a.* FROM unnest(added) a UNION ALL SELECT -1, r.* FROM unnest(removed) r
  ) d GROUP BY job_name, status HAVING sum(sign) <> 0 ORDER BY job_name, status
  ON CONFLICT (job_name, status) DO UPDATE SET fires = c.fires + excluded.fires;
END $$;
--> statement-breakpoint
CREATE FUNCTION topsync_schedule_fires_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM topsync_count_fires(array(SELECT n::schedule_fires FROM new_rows n), '{}');
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM topsync_count_fires(array(SELECT n::schedule_fires FROM new_rows n), array(SELECT o::schedule_fires FROM old_rows o));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM topsync_count_fires('{}', array(SELECT o::schedule_fires FROM old_rows o));
  ELSE
    DELETE FROM schedule_fire_counts;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER schedule_fires_counted_insert AFTER INSERT ON schedule_fires REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION topsync_schedule_fires_changed();
--> statement-breakpoint
CREATE TRIGGER schedule_fires_counted_update AFTER UPDATE ON schedule_fires
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION topsync_schedule_fires_changed();
--> statement-breakpoint
CREATE TRIGGER schedule_fires_counted_delete AFTER DELETE ON schedule_fires REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION topsync_schedule_fires_changed();
--> statement-breakpoint
CREATE TRIGGER schedule_fires_counted_truncate AFTER TRUNCATE ON schedule_fires
  FOR EACH STATEMENT EXECUTE FUNCTION topsync_schedule_fires_changed();
--> statement-breakpoint
INSERT INTO schedule_fire_counts (job_name, status, fires)
SELECT job_name, status, count(*) FROM schedule_fires GROUP BY job_name, status;
