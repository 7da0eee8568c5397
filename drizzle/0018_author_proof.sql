ALTER TABLE "saved_plans" ADD COLUMN "author_proof" text DEFAULT 'account' NOT NULL;--> statement-breakpoint
ALTER TABLE "saved_plans" ADD COLUMN "author_signature" text;--> statement-breakpoint
-- A plan saved before authors could prove their name and not yet approved: its author was whatever --as said.
UPDATE "saved_plans" SET "author_proof" = 'claimed' WHERE "origin" = 'saved' AND "status" = 'pending_approval';
