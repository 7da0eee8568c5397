CREATE TABLE "purchase_day_rollups" (
	"bucket" timestamp with time zone NOT NULL,
	"state" text NOT NULL,
	"budget_day" text NOT NULL,
	"purchases" bigint NOT NULL,
	"amount" numeric NOT NULL,
	"refunded" numeric NOT NULL,
	CONSTRAINT "purchase_day_rollups_pkey" PRIMARY KEY("bucket","state","budget_day")
);
--> statement-breakpoint
CREATE TABLE "purchase_failure_rollups" (
	"day" timestamp with time zone NOT NULL,
	"message_md5" text NOT NULL,
	"message" text NOT NULL,
	"purchases" bigint NOT NULL,
	"amount" numeric NOT NULL,
	"refunded" numeric NOT NULL,
	CONSTRAINT "purchase_failure_rollups_pkey" PRIMARY KEY("day","message_md5")
);
--> statement-breakpoint
CREATE TABLE "purchase_group_rollups" (
	"day" timestamp with time zone NOT NULL,
	"state" text NOT NULL,
	"network_id" text NOT NULL,
	"network" text NOT NULL,
	"job" text NOT NULL,
	"purchases" bigint NOT NULL,
	"amount" numeric NOT NULL,
	CONSTRAINT "purchase_group_rollups_pkey" PRIMARY KEY("day","state","network_id","network","job")
);
--> statement-breakpoint
CREATE TABLE "purchase_latency_month_rollups" (
	"month" timestamp with time zone NOT NULL,
	"latency_bucket" integer NOT NULL,
	"purchases" bigint NOT NULL,
	"micros" bigint NOT NULL,
	CONSTRAINT "purchase_latency_month_rollups_pkey" PRIMARY KEY("month","latency_bucket")
);
--> statement-breakpoint
DROP INDEX "website_runs_started";--> statement-breakpoint
CREATE INDEX "schedule_fires_skipped" ON "schedule_fires" USING btree ("job_name","fire_time") WHERE status = 'skipped';--> statement-breakpoint
CREATE INDEX "website_runs_started" ON "website_runs" USING btree ("started_at","status","created","updated","deleted");
--> statement-breakpoint
-- Everything below is written by hand: the tables above kept as purchase_rollups and purchase_latency_rollups are.
--
-- The first instant of the UTC calendar month of `t`.
CREATE FUNCTION topsync_utc_month(t timestamptz) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  select date_trunc('month', t at time zone 'UTC') at time zone 'UTC'
$$;
--> statement-breakpoint
-- Writes the report's narrower rollups of the UTC days [from_day, to_day) from the rollups written for those days,
-- and every latency month those days fall in from its days' rows: the narrower tables are sums of the wider ones, so
-- they hold what those hold, stale where those are (a day changed since it was sealed, which a report reads from the
-- purchases). Month arithmetic is done in UTC whatever the session's TimeZone.
CREATE FUNCTION topsync_seal_report_sections(from_day timestamptz, to_day timestamptz) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  first_month constant timestamptz := topsync_utc_month(from_day);
  after_month constant timestamptz :=
    (date_trunc('month', (to_day - interval '1 microsecond') at time zone 'UTC') + interval '1 month') at time zone 'UTC';
BEGIN
  DELETE FROM purchase_day_rollups WHERE bucket >= from_day AND bucket < to_day;
  DELETE FROM purchase_group_rollups WHERE day >= from_day AND day < to_day;
  DELETE FROM purchase_failure_rollups WHERE day >= from_day AND day < to_day;
  INSERT INTO purchase_day_rollups (bucket, state, budget_day, purchases, amount, refunded)
  SELECT bucket, state, budget_day, sum(purchases), sum(amount), sum(refunded) FROM purchase_rollups
  WHERE bucket >= from_day AND bucket < to_day
  GROUP BY bucket, state, budget_day;
  INSERT INTO purchase_group_rollups (day, state, network_id, network, job, purchases, amount)
  SELECT topsync_utc_day(bucket), state, network_id, network, job, sum(purchases), sum(amount) FROM purchase_rollups
  WHERE bucket >= from_day AND bucket < to_day
    AND state IN ('submitting', 'submitted', 'succeeded', 'failed', 'in_doubt', 'unverified')
  GROUP BY 1, 2, 3, 4, 5;
  INSERT INTO purchase_failure_rollups (day, message_md5, message, purchases, amount, refunded)
  SELECT topsync_utc_day(bucket), message_md5, min(message), sum(purchases), sum(amount), sum(refunded)
  FROM purchase_rollups
  WHERE bucket >= from_day AND bucket < to_day AND state = 'failed'
  GROUP BY 1, 2;
  DELETE FROM purchase_latency_month_rollups WHERE month >= first_month AND month < after_month;
  INSERT INTO purchase_latency_month_rollups (month, latency_bucket, purchases, micros)
  SELECT topsync_utc_month(bucket), latency_bucket, sum(purchases), sum(micros) FROM purchase_latency_rollups
  WHERE bucket >= first_month AND bucket < after_month
  GROUP BY 1, 2;
END $$;
--> statement-breakpoint
-- As migration 0006 wrote it, but for two changes: the report's narrower rollups are written with each range of
-- days, and a day is sealed once it has been over for an hour (it was: once the day after it was over too), so a
-- report reads from the purchases only today's (and, in the first hour of a day, yesterday's). A writer marks a day
-- whenever it changes a purchase of a day that was over when its transaction started, so a change a seal cannot see
-- and nobody marked would take a transaction that started before the day ended and commits after the seal, an hour
-- or more later: topsync's transactions on purchases take milliseconds to seconds.
CREATE OR REPLACE FUNCTION topsync_seal_rollups(until timestamptz) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  sealed timestamptz;
  first_day timestamptz;
  ranges timestamptz[][];
  r timestamptz[];
  written integer := 0;
BEGIN
  until := least(topsync_utc_day(until), topsync_utc_day(now() - interval '1 hour'));
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
    PERFORM topsync_seal_report_sections(r[1], r[2]);
    written := written + extract(day from r[2] - r[1])::integer;
  END LOOP;
  INSERT INTO kv (key, value) VALUES ('rollups', jsonb_build_object('sealed_until', greatest(sealed, until)))
  ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = now();
  RETURN written;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION topsync_purchases_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM purchase_state_counts;
  DELETE FROM purchase_rollups;
  DELETE FROM purchase_latency_rollups;
  DELETE FROM purchase_day_rollups;
  DELETE FROM purchase_group_rollups;
  DELETE FROM purchase_failure_rollups;
  DELETE FROM purchase_latency_month_rollups;
  DELETE FROM purchase_rollup_dirty;
  DELETE FROM kv WHERE key = 'rollups';
  RETURN NULL;
END $$;
--> statement-breakpoint
-- The narrower rollups of the days sealed so far (migration 0006 sealed every day before yesterday).
SELECT topsync_seal_report_sections(topsync_utc_day(min(bucket)), topsync_utc_day(max(bucket)) + interval '24 hours')
FROM purchase_rollups;
