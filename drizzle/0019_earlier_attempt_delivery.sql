ALTER TABLE "earlier_references" ADD COLUMN "amount" numeric(14, 2);--> statement-breakpoint
ALTER TABLE "earlier_references" ADD COLUMN "budget_day" date;--> statement-breakpoint
ALTER TABLE "earlier_references" ADD COLUMN "delivered_at" timestamp with time zone;--> statement-breakpoint
-- An attempt whose late delivery was flagged (and its charge counted) while it was the purchase's own, before a person
-- requeued it: flagging it again as an earlier attempt's would count its charge twice.
UPDATE "earlier_references" e SET "delivered_at" = e."requeued_at"
WHERE EXISTS (SELECT 1 FROM "purchase_events" v WHERE v."purchase_id" = e."purchase_id" AND v."at" <= e."requeued_at"
  AND v."reason" LIKE 'delivered_after_failure:%' AND strpos(v."reason", e."reference") > 0);
