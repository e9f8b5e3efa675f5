CREATE TABLE "gateway"."llm_settings" (
	"chain_id" integer NOT NULL,
	"collection" text NOT NULL,
	"token_id" text NOT NULL,
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"temperature" double precision NOT NULL,
	"max_tokens" integer NOT NULL,
	"api_key_entry" uuid,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "llm_settings_chain_id_collection_token_id_pk" PRIMARY KEY("chain_id","collection","token_id")
);
--> statement-breakpoint
CREATE TABLE "gateway"."prompt_templates" (
	"chain_id" integer NOT NULL,
	"collection" text NOT NULL,
	"token_id" text NOT NULL,
	"key" text NOT NULL,
	"template" text NOT NULL,
	"description" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "prompt_templates_chain_id_collection_token_id_key_pk" PRIMARY KEY("chain_id","collection","token_id","key")
);
--> statement-breakpoint
CREATE TABLE "gateway"."vault_entries" (
	"id" uuid PRIMARY KEY NOT NULL,
	"chain_id" integer NOT NULL,
	"collection" text NOT NULL,
	"token_id" text NOT NULL,
	"owner" text NOT NULL,
	"kek_version" integer NOT NULL,
	"wrapped_key" "bytea" NOT NULL,
	"ciphertext" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "gateway"."llm_settings" ADD CONSTRAINT "llm_settings_api_key_entry_vault_entries_id_fk" FOREIGN KEY ("api_key_entry") REFERENCES "gateway"."vault_entries"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "vault_entries_agent" ON "gateway"."vault_entries" USING btree ("chain_id","collection","token_id");--> statement-breakpoint
CREATE INDEX "vault_entries_kek_version" ON "gateway"."vault_entries" USING btree ("kek_version");