CREATE TABLE "gateway"."agent_profiles" (
	"chain_id" integer NOT NULL,
	"collection" text NOT NULL,
	"token_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"image" text,
	"set_by_wallet" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_profiles_chain_id_collection_token_id_pk" PRIMARY KEY("chain_id","collection","token_id"),
	CONSTRAINT "agent_profiles_set_by_wallet" CHECK ("gateway"."agent_profiles"."set_by_wallet" ~ '^0x[0-9a-f]{40}$')
);
