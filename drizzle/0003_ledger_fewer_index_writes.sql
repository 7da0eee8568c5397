ALTER TABLE "purchase_events" DROP CONSTRAINT "purchase_events_pkey";--> statement-breakpoint
DROP INDEX "purchase_events_purchase";--> statement-breakpoint
ALTER TABLE "purchase_events" ADD CONSTRAINT "purchase_events_pkey" PRIMARY KEY("purchase_id","id");--> statement-breakpoint
DROP INDEX "purchases_created";--> statement-breakpoint
CREATE INDEX "purchases_created" ON "purchases" USING brin ("created_at");
