-- pg_trgm serves case-insensitive substring search of context keys in every agent schema.
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
--> statement-breakpoint
CREATE TABLE "gateway"."agent_storage" (
	"schema_name" text PRIMARY KEY NOT NULL,
	"chain_id" integer NOT NULL,
	"collection" text NOT NULL,
	"token_id" text NOT NULL,
	"template_version" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"upgraded_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_storage_identity" UNIQUE("chain_id","collection","token_id"),
	CONSTRAINT "agent_storage_schema_name" CHECK ("gateway"."agent_storage"."schema_name" ~ '^agent_[a-z2-7]{32}$')
);
