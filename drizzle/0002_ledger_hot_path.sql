ALTER TABLE "purchase_events" DROP CONSTRAINT "purchase_events_purchase_id_purchases_id_fk";
--> statement-breakpoint
DROP INDEX "purchases_state";--> statement-breakpoint
DROP INDEX "purchases_reference";--> statement-breakpoint
DROP INDEX "purchases_submitted";--> statement-breakpoint
ALTER TABLE "purchase_events" ALTER COLUMN "response" SET DATA TYPE json;--> statement-breakpoint
CREATE INDEX "purchases_unsettled" ON "purchases" USING btree ("state") WHERE state in ('submitting', 'in_doubt', 'unverified');--> statement-breakpoint
CREATE INDEX "purchases_reference" ON "purchases" USING btree ("reference") WHERE reference is not null;--> statement-breakpoint
CREATE INDEX "purchases_submitted" ON "purchases" USING btree ("submitted_at") WHERE submitted_at is not null;