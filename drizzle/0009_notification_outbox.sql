CREATE TABLE "notification_channels" (
	"name" text PRIMARY KEY NOT NULL,
	"next_send_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_deliveries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"channel" text NOT NULL,
	"trigger" text NOT NULL,
	"kind" text NOT NULL,
	"event_ids" bigint[] NOT NULL,
	"message" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp with time zone,
	"claimed_by" text,
	"last_error" text,
	"answer" text,
	"first_event_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "notification_outbox" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"trigger" text NOT NULL,
	"subject" text NOT NULL,
	"episode" text NOT NULL,
	"kind" text DEFAULT 'open' NOT NULL,
	"facts" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"routed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "notification_deliveries_due" ON "notification_deliveries" USING btree ("channel","id") WHERE status in ('pending', 'sending');--> statement-breakpoint
CREATE INDEX "notification_deliveries_created" ON "notification_deliveries" USING btree ("created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "notification_outbox_key" ON "notification_outbox" USING btree ("trigger","subject","episode");--> statement-breakpoint
CREATE INDEX "notification_outbox_pending" ON "notification_outbox" USING btree ("trigger","id") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "notification_outbox_subject" ON "notification_outbox" USING btree ("subject","trigger");--> statement-breakpoint
CREATE INDEX "notification_outbox_open" ON "notification_outbox" USING btree ("created_at") WHERE kind = 'open' and status = 'routed' and trigger in ('in_doubt', 'unverified', 'verify_mismatch', 'wallet_low');