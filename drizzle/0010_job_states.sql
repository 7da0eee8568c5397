CREATE TABLE "job_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"job_name" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor" text NOT NULL,
	"from_state" text,
	"to_state" text NOT NULL,
	"reason" text
);
--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "state" text DEFAULT 'active' NOT NULL;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "note" text;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "state_changed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "state_changed_by" text;--> statement-breakpoint
ALTER TABLE "schedule_fires" ADD COLUMN "outcome" text;--> statement-breakpoint
CREATE INDEX "job_events_job" ON "job_events" USING btree ("job_name","at");