CREATE TABLE "earlier_references" (
	"reference" text PRIMARY KEY NOT NULL,
	"purchase_id" bigint NOT NULL,
	"state" text NOT NULL,
	"requeued_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "earlier_references_purchase" ON "earlier_references" USING btree ("purchase_id");