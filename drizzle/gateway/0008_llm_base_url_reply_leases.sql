CREATE TABLE "gateway"."reply_leases" (
	"context_ref" text PRIMARY KEY NOT NULL,
	"lease_id" uuid NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "gateway"."llm_settings" ADD COLUMN "base_url" text;