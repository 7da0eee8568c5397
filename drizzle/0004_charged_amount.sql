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
CREATE INDEX "purchases_answer_seq" ON "purchases" USING btree ("answer_seq") WHERE answer_seq is not null;--> statement-breakpoint
CREATE INDEX "purchases_noted" ON "purchases" USING btree ("id") WHERE note is not null;--> statement-breakpoint
CREATE SEQUENCE "purchase_answer_seq";
