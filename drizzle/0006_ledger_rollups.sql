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
	"purchases" bigint NOT NULL,
	"micros" bigint NOT NULL,
	CONSTRAINT "purchase_latency_rollups_pkey" PRIMARY KEY("bucket","latency_bucket")
);
--> statement-breakpoint
CREATE TABLE "purchase_rollup_dirty" (
	"day" timestamp with time zone PRIMARY KEY NOT NULL
);
--> statement-breakpoint
CREATE TABLE "purchase_rollups" (
	"bucket" timestamp with time zone NOT NULL,
	"state" text NOT NULL,
	"budget_day" text NOT NULL,
	"network_id" text NOT NULL,
	"network" text NOT NULL,
	"job" text NOT NULL,
	"message_md5" text NOT NULL,
	"message" text NOT NULL,
	"purchases" bigint NOT NULL,
	"amount" numeric NOT NULL,
	"refunded" numeric NOT NULL,
	CONSTRAINT "purchase_rollups_pkey" PRIMARY KEY("bucket","state","budget_day","network_id","network","job","message_md5")
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
CREATE INDEX "website_runs_ok_finished" ON "website_runs" USING btree ("finished_at") WHERE status = 'ok';--> statement-breakpoint
-- Everything below is written by hand: what keeps the counts and rollups above equal to the ledger.
--
-- The failure message a report groups failed purchases by: the provider's message, or else the reason, with every
-- phone number in it (whole or masked, with spaces, dots or dashes as src/log/mask.ts reads them) as <phone>.
CREATE FUNCTION topsync_failure_message(provider_message text, reason text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  select regexp_replace(coalesce(nullif(provider_message, ''), reason, '(no message)'),
    '(\+?234[ .-]?(\(0\)[ .-]?|0[ .-]?)?|\(?0)[789][ .-]?[01][ .-]?[0-9*]\)?([ .-]?[0-9*]){7}', '<phone>', 'g')
$$;
--> statement-breakpoint
-- A verification latency's bucket: 0 under 1 ms, else 1 + floor(log base 1.01 of the milliseconds).
CREATE FUNCTION topsync_latency_bucket(micros bigint) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  select case when micros < 1000 then 0 else 1 + floor(ln(micros / 1000.0::float8) / ln(1.01::float8))::integer end
$$;
--> statement-breakpoint
-- Which writer's share of a count a statement adds to (schema.ts).
CREATE FUNCTION topsync_shard() RETURNS smallint LANGUAGE sql STABLE PARALLEL SAFE AS $$
  select (pg_backend_pid() % 8)::smallint
$$;
--> statement-breakpoint
-- The first instant of the UTC day of `t`.
CREATE FUNCTION topsync_utc_day(t timestamptz) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  select date_trunc('day', t at time zone 'UTC') at time zone 'UTC'
$$;
--> statement-breakpoint
CREATE TYPE topsync_purchase_fact AS (
  bucket timestamptz, state text, budget_day text, network_id text, network text, job text, message_md5 text,
  message text, amount numeric, refunded numeric, latency_micros bigint
);
--> statement-breakpoint
-- Where one purchase goes in the rollups, and what it adds to them. Sealing and the report (for the days not
-- sealed) both file purchases through this function, so the two agree by construction. Times are cut in UTC
-- whatever the session's TimeZone, dates written whatever its DateStyle.
CREATE FUNCTION topsync_purchase_fact(p purchases) RETURNS SETOF topsync_purchase_fact
LANGUAGE sql STABLE AS $$
  select
    (case when p.budget_day is null
            and p.state in ('submitting', 'submitted', 'succeeded', 'failed', 'in_doubt', 'unverified')
          then date_trunc('minute', coalesce(p.submitted_at, p.created_at) at time zone 'UTC')
          else date_trunc('day', coalesce(p.submitted_at, p.created_at) at time zone 'UTC') end) at time zone 'UTC',
    p.state,
    case when p.state in ('submitting', 'submitted', 'succeeded', 'failed', 'in_doubt', 'unverified')
      then coalesce(to_char(p.budget_day, 'YYYY-MM-DD'), '') else '' end,
    case when p.state in ('submitting', 'submitted', 'succeeded', 'failed', 'in_doubt', 'unverified')
      then left(coalesce(p.network_id, ''), 100) else '' end,
    case when p.state in ('submitting', 'submitted', 'succeeded', 'failed', 'in_doubt', 'unverified')
      then left(upper(p.network), 100) else '' end,
    case when p.state in ('submitting', 'submitted', 'succeeded', 'failed', 'in_doubt', 'unverified')
      then left(coalesce(p.job_name, '(' || p.source || ')'), 100) else '' end,
    case when p.state = 'failed' then md5(topsync_failure_message(p.provider_message, p.reason)) else '' end,
    case when p.state = 'failed' then topsync_failure_message(p.provider_message, p.reason) else '' end,
    coalesce(p.charged_amount, p.amount, 0),
    case when p.state = 'failed' then coalesce(p.refund_amount, 0) else 0 end,
    case when p.state in ('succeeded', 'failed') and p.settled_at >= p.submitted_at
      then (extract(epoch from (p.settled_at - p.submitted_at)) * 1000000)::bigint end
$$;
--> statement-breakpoint
-- Seals the UTC days before `until` (never later than the start of yesterday, by the database's clock): the days
-- not sealed yet and the sealed days a write changed since (purchase_rollup_dirty) get their rollup rows written
-- whole from the purchases, and `until` is recorded as sealed (kv 'rollups'). No writer waits for it. A writer marks
-- a day whenever it changes a purchase of a day before its own today, and a day is sealed only once the day after
-- it is over too, so any writer that runs beside a seal marks the days the seal writes: a mark committed before the
-- seal reads the marks goes with a change the seal reads; a mark committed after it stays, and the day is read from
-- the purchases until the next seal. Seals take turns (an advisory lock). Returns the days written.
CREATE FUNCTION topsync_seal_rollups(until timestamptz) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  sealed timestamptz;
  first_day timestamptz;
  ranges timestamptz[][];
  r timestamptz[];
  written integer := 0;
BEGIN
  until := least(topsync_utc_day(until), topsync_utc_day(now()) - interval '1 day');
  PERFORM pg_advisory_xact_lock(7263541002);
  SELECT (value ->> 'sealed_until')::timestamptz INTO sealed FROM kv WHERE key = 'rollups';
  IF sealed IS NULL THEN
    SELECT topsync_utc_day(least(min(submitted_at), min(created_at))) INTO first_day FROM purchases;
    sealed := least(coalesce(first_day, until), until);
  END IF;
  -- The days to write: [sealed, until) at once, then each dirty day before `sealed`, as [from, to) ranges.
  WITH marked AS (DELETE FROM purchase_rollup_dirty WHERE day < greatest(until, sealed) RETURNING day)
  SELECT array_agg(ARRAY[a, b] ORDER BY a) INTO ranges FROM (
    SELECT sealed AS a, until AS b WHERE sealed < until
    UNION SELECT day, day + interval '1 day' FROM marked WHERE day < sealed
  ) days;
  FOREACH r SLICE 1 IN ARRAY coalesce(ranges, ARRAY[[null, null]]::timestamptz[][])
  LOOP
    CONTINUE WHEN r[1] IS NULL;
    DELETE FROM purchase_rollups WHERE bucket >= r[1] AND bucket < r[2];
    DELETE FROM purchase_latency_rollups WHERE bucket >= r[1] AND bucket < r[2];
    INSERT INTO purchase_rollups (bucket, state, budget_day, network_id, network, job, message_md5, message,
      purchases, amount, refunded)
    SELECT f.bucket, f.state, f.budget_day, f.network_id, f.network, f.job, f.message_md5, min(f.message), count(*),
      sum(f.amount), sum(f.refunded)
    FROM purchases p CROSS JOIN LATERAL topsync_purchase_fact(p) f
    WHERE (p.submitted_at >= r[1] AND p.submitted_at < r[2])
       OR (p.submitted_at IS NULL AND p.created_at >= r[1] AND p.created_at < r[2])
    GROUP BY f.bucket, f.state, f.budget_day, f.network_id, f.network, f.job, f.message_md5;
    INSERT INTO purchase_latency_rollups (bucket, latency_bucket, purchases, micros)
    SELECT topsync_utc_day(p.submitted_at), topsync_latency_bucket(f.latency_micros), count(*), sum(f.latency_micros)
    FROM purchases p CROSS JOIN LATERAL topsync_purchase_fact(p) f
    WHERE p.submitted_at >= r[1] AND p.submitted_at < r[2] AND f.latency_micros IS NOT NULL
    GROUP BY 1, 2;
    written := written + extract(day from r[2] - r[1])::integer;
  END LOOP;
  INSERT INTO kv (key, value) VALUES ('rollups', jsonb_build_object('sealed_until', greatest(sealed, until)))
  ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = now();
  RETURN written;
END $$;
--> statement-breakpoint
-- One statement per statement that changed purchases, whatever wrote it (topsync, a person with psql, a test): the
-- counts by state and note kind, into this session's shard (rows locked in key order, so two writers never wait on
-- each other in a cycle); and the sealed days it touched, when a changed row (as it was or as it is) belongs to a
-- day before today. The statement is written once here and made into the trigger function of inserts, updates and
-- deletes (which see the changed rows as new_rows, both, or old_rows): a function per kind keeps its plan cached.
DO $migration$
DECLARE
  changed constant text := 'SELECT %s AS sign, p.state, coalesce(left(split_part(p.note, '':'', 1), 100), '''') AS note_kind,
      coalesce(p.submitted_at, p.created_at) AS filed FROM %s p';
  body constant text := $body$
DECLARE
  today constant timestamptz := topsync_utc_day(now());
  earliest timestamptz;
BEGIN
  WITH d AS MATERIALIZED (
    %1$s
  ), counts AS (
    INSERT INTO purchase_state_counts AS c (state, note_kind, shard, purchases)
    SELECT state, note_kind, topsync_shard(), sum(sign) FROM d GROUP BY state, note_kind
    HAVING sum(sign) <> 0 ORDER BY state, note_kind
    ON CONFLICT (state, note_kind, shard) DO UPDATE SET purchases = c.purchases + excluded.purchases
  )
  SELECT min(filed) INTO STRICT earliest FROM d;
  IF earliest < today THEN
    INSERT INTO purchase_rollup_dirty (day)
    SELECT DISTINCT topsync_utc_day(filed) FROM (%1$s) d WHERE filed < today ORDER BY 1 ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END
$body$;
BEGIN
  EXECUTE format('CREATE FUNCTION topsync_purchases_inserted() RETURNS trigger LANGUAGE plpgsql AS %L',
    format(body, format(changed, 1, 'new_rows')));
  EXECUTE format('CREATE FUNCTION topsync_purchases_updated() RETURNS trigger LANGUAGE plpgsql AS %L',
    format(body, format(changed, 1, 'new_rows') || ' UNION ALL ' || format(changed, -1, 'old_rows')));
  EXECUTE format('CREATE FUNCTION topsync_purchases_deleted() RETURNS trigger LANGUAGE plpgsql AS %L',
    format(body, format(changed, -1, 'old_rows')));
END
$migration$;
--> statement-breakpoint
CREATE FUNCTION topsync_purchases_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM purchase_state_counts;
  DELETE FROM purchase_rollups;
  DELETE FROM purchase_latency_rollups;
  DELETE FROM purchase_rollup_dirty;
  DELETE FROM kv WHERE key = 'rollups';
  RETURN NULL;
END $$;
--> statement-breakpoint
-- The triggers lock purchases against writers until this migration commits, so the counts below take every
-- purchase exactly once: written before them (counted here) or after them (counted by the triggers).
CREATE TRIGGER purchases_counted_insert AFTER INSERT ON purchases REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION topsync_purchases_inserted();
--> statement-breakpoint
CREATE TRIGGER purchases_counted_update AFTER UPDATE ON purchases REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION topsync_purchases_updated();
--> statement-breakpoint
CREATE TRIGGER purchases_counted_delete AFTER DELETE ON purchases REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION topsync_purchases_deleted();
--> statement-breakpoint
CREATE TRIGGER purchases_counted_truncate AFTER TRUNCATE ON purchases
  FOR EACH STATEMENT EXECUTE FUNCTION topsync_purchases_truncated();
--> statement-breakpoint
INSERT INTO purchase_state_counts (state, note_kind, shard, purchases)
SELECT state, coalesce(left(split_part(note, ':', 1), 100), ''), 0, count(*) FROM purchases GROUP BY 1, 2;
--> statement-breakpoint
SELECT topsync_seal_rollups(now());
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
    PERFORM topsync_count_fires(array(SELECT n::schedule_fires FROM new_rows n),
      array(SELECT o::schedule_fires FROM old_rows o));
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
