CREATE TABLE "console_form_uses" (
	"form_token" text PRIMARY KEY NOT NULL,
	"user_name" text NOT NULL,
	"action" text NOT NULL,
	"subject" text NOT NULL,
	"outcome" text,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "console_sessions" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"user_name" text NOT NULL,
	"csrf" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "console_form_uses_at" ON "console_form_uses" USING btree ("at");--> statement-breakpoint
CREATE INDEX "console_sessions_expires" ON "console_sessions" USING btree ("expires_at");