ALTER TABLE "pruned_purchases" ADD COLUMN "phone" text;--> statement-breakpoint
ALTER TABLE "pruned_purchases" ADD COLUMN "amount" numeric(14, 2);--> statement-breakpoint
ALTER TABLE "pruned_purchases" ADD COLUMN "plan_id" text;--> statement-breakpoint
ALTER TABLE "pruned_purchases" ADD COLUMN "plan_name" text;--> statement-breakpoint
ALTER TABLE "pruned_purchases" ADD COLUMN "posted_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "pruned_purchases_posted" ON "pruned_purchases" USING btree ("posted_at") WHERE posted_at is not null;