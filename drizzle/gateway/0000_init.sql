CREATE SCHEMA "gateway";
--> statement-breakpoint
CREATE TABLE "gateway"."collections" (
	"chain_id" integer NOT NULL,
	"address" text NOT NULL,
	"kind" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "collections_chain_id_address_pk" PRIMARY KEY("chain_id","address"),
	CONSTRAINT "collections_address_format" CHECK ("gateway"."collections"."address" ~ '^0x[0-9a-f]{40}$'),
	CONSTRAINT "collections_kind_format" CHECK ("gateway"."collections"."kind" ~ '^[a-z][a-z0-9_-]{0,31}$')
);
