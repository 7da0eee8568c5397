CREATE TABLE "plan_approvals" (
	"plan_id" text NOT NULL,
	"approver" text NOT NULL,
	"decision" text NOT NULL,
	"digest" text NOT NULL,
	"signature" text NOT NULL,
	"reason" text,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "plan_approvals_pkey" PRIMARY KEY("plan_id","approver")
);
--> statement-breakpoint
CREATE TABLE "saved_plans" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"origin" text NOT NULL,
	"author" text NOT NULL,
	"status" text NOT NULL,
	"digest" text NOT NULL,
	"config_digest" text,
	"document" json NOT NULL,
	"total" numeric(14, 2) NOT NULL,
	"items" integer NOT NULL,
	"approvals_required" integer NOT NULL,
	"reserved" numeric(14, 2) DEFAULT '0' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"approved_at" timestamp with time zone,
	"applied_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"reason" text
);
--> statement-breakpoint
ALTER TABLE "purchases" ADD COLUMN "approval" text;--> statement-breakpoint
CREATE INDEX "saved_plans_created" ON "saved_plans" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "saved_plans_open" ON "saved_plans" USING btree ("status","approved_at") WHERE status in ('pending_approval', 'approved', 'applying');--> statement-breakpoint
CREATE INDEX "purchases_saved_plan" ON "purchases" USING btree ("approval") WHERE approval like 'plan:%';