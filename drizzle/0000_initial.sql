CREATE TABLE "budget_days" (
	"day" date PRIMARY KEY NOT NULL,
	"committed" numeric(14, 2) DEFAULT '0' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "jobs" (
	"name" text PRIMARY KEY NOT NULL,
	"first_seen" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "kv" (
	"key" text PRIMARY KEY NOT NULL,
	"value" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "purchase_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"purchase_id" bigint NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor" text NOT NULL,
	"from_state" text,
	"to_state" text NOT NULL,
	"reason" text,
	"response" jsonb
);
--> statement-breakpoint
CREATE TABLE "purchase_requests" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"request_key" text NOT NULL,
	"network" text NOT NULL,
	"plan_id" text,
	"plan_size" text,
	"plan_type" text,
	"plan_name_contains" text,
	"phone" text NOT NULL,
	"ported" boolean DEFAULT false NOT NULL,
	"not_before" timestamp with time zone,
	"max_price" numeric(14, 2),
	"requested_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"processed_at" timestamp with time zone,
	"purchase_id" bigint,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "purchases" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"request_key" text NOT NULL,
	"source" text NOT NULL,
	"job_name" text,
	"fire_time" timestamp with time zone,
	"network" text NOT NULL,
	"network_id" text,
	"plan_id" text,
	"plan_selector" jsonb,
	"plan_name" text,
	"phone" text NOT NULL,
	"ported" boolean DEFAULT false NOT NULL,
	"max_price" numeric(14, 2),
	"amount" numeric(14, 2),
	"state" text DEFAULT 'queued' NOT NULL,
	"reason" text,
	"not_before" timestamp with time zone DEFAULT now() NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer DEFAULT 5 NOT NULL,
	"reference" text,
	"provider_status" text,
	"provider_message" text,
	"refund_amount" numeric(14, 2),
	"budget_day" date,
	"run_id" text,
	"verify_attempts" integer DEFAULT 0 NOT NULL,
	"next_verify_at" timestamp with time zone,
	"requested_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"submitted_at" timestamp with time zone,
	"settled_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "schedule_fires" (
	"fire_key" text PRIMARY KEY NOT NULL,
	"job_name" text NOT NULL,
	"fire_time" timestamp with time zone NOT NULL,
	"status" text NOT NULL,
	"reason" text,
	"claimed_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "website_ownership" (
	"domain" text PRIMARY KEY NOT NULL,
	"website_id" bigint,
	"origin" text NOT NULL,
	"applied_secrets" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "website_runs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"mode" text NOT NULL,
	"status" text NOT NULL,
	"created" integer DEFAULT 0 NOT NULL,
	"updated" integer DEFAULT 0 NOT NULL,
	"deleted" integer DEFAULT 0 NOT NULL,
	"unchanged" integer DEFAULT 0 NOT NULL,
	"unmanaged" integer DEFAULT 0 NOT NULL,
	"conflicts" integer DEFAULT 0 NOT NULL,
	"errors" jsonb,
	"summary" jsonb
);
--> statement-breakpoint
ALTER TABLE "purchase_events" ADD CONSTRAINT "purchase_events_purchase_id_purchases_id_fk" FOREIGN KEY ("purchase_id") REFERENCES "public"."purchases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "purchase_events_purchase" ON "purchase_events" USING btree ("purchase_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "purchase_requests_request_key" ON "purchase_requests" USING btree ("request_key");--> statement-breakpoint
CREATE INDEX "purchase_requests_pending" ON "purchase_requests" USING btree ("id") WHERE processed_at is null;--> statement-breakpoint
CREATE UNIQUE INDEX "purchases_request_key" ON "purchases" USING btree ("request_key");--> statement-breakpoint
CREATE INDEX "purchases_due" ON "purchases" USING btree ("not_before","id") WHERE state = 'queued';--> statement-breakpoint
CREATE INDEX "purchases_verify_due" ON "purchases" USING btree ("next_verify_at") WHERE state in ('submitted', 'unverified');--> statement-breakpoint
CREATE INDEX "purchases_state" ON "purchases" USING btree ("state");--> statement-breakpoint
CREATE INDEX "purchases_reference" ON "purchases" USING btree ("reference");--> statement-breakpoint
CREATE INDEX "purchases_created" ON "purchases" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "purchases_submitted" ON "purchases" USING btree ("submitted_at");--> statement-breakpoint
CREATE INDEX "schedule_fires_job" ON "schedule_fires" USING btree ("job_name","fire_time");--> statement-breakpoint
CREATE INDEX "website_runs_started" ON "website_runs" USING btree ("started_at");