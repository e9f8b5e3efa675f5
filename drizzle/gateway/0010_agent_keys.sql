CREATE TABLE "gateway"."agent_keys" (
	"id" uuid PRIMARY KEY NOT NULL,
	"chain_id" integer NOT NULL,
	"collection" text NOT NULL,
	"token_id" text NOT NULL,
	"key_hash" text NOT NULL,
	"name" text NOT NULL,
	"scopes" text[] NOT NULL,
	"created_by_wallet" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"revoked_reason" text,
	"last_used_at" timestamp with time zone,
	"use_count" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "agent_keys_key_hash" UNIQUE("key_hash"),
	CONSTRAINT "agent_keys_key_hash_format" CHECK ("gateway"."agent_keys"."key_hash" ~ '^[0-9a-f]{64}$'),
	CONSTRAINT "agent_keys_created_by_wallet" CHECK ("gateway"."agent_keys"."created_by_wallet" ~ '^0x[0-9a-f]{40}$'),
	CONSTRAINT "agent_keys_revoked_reason" CHECK ("gateway"."agent_keys"."revoked_reason" in ('owner', 'owner_changed'))
);
--> statement-breakpoint
CREATE INDEX "agent_keys_agent" ON "gateway"."agent_keys" USING btree ("chain_id","collection","token_id");