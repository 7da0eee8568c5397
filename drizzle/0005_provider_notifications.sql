CREATE TABLE "provider_notifications" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"body_sha256" text NOT NULL,
	"source" text,
	"reference" text,
	"status" text,
	"phone" text,
	"amount" numeric(14, 2),
	"plan" text,
	"notified_at" timestamp with time zone,
	"body" text NOT NULL,
	"outcome" text DEFAULT 'received' NOT NULL,
	"reason" text,
	"purchase_id" bigint,
	"processed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "provider_notifications_body" ON "provider_notifications" USING btree ("body_sha256");--> statement-breakpoint
CREATE INDEX "provider_notifications_reference" ON "provider_notifications" USING btree ("reference");--> statement-breakpoint
CREATE INDEX "provider_notifications_purchase" ON "provider_notifications" USING btree ("purchase_id") WHERE purchase_id is not null;