CREATE TABLE "purchase_runs" (
	"run_id" text PRIMARY KEY NOT NULL,
	"actor" text NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "purchases" ADD COLUMN "charged_amount" numeric(14, 2);--> statement-breakpoint
ALTER TABLE "purchases" ADD COLUMN "note" text;--> statement-breakpoint
ALTER TABLE "purchases" ADD COLUMN "answer_seq" bigint;--> statement-breakpoint
CREATE SEQUENCE "purchase_answer_seq";
