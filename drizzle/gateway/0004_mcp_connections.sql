CREATE TABLE "gateway"."mcp_connections" (
	"id" uuid PRIMARY KEY NOT NULL,
	"chain_id" integer NOT NULL,
	"collection" text NOT NULL,
	"token_id" text NOT NULL,
	"url" text NOT NULL,
	"name" text,
	"auth_type" text NOT NULL,
	"header_name" text,
	"secret_entry" uuid,
	"tools" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mcp_connections_agent_url" UNIQUE("chain_id","collection","token_id","url"),
	CONSTRAINT "mcp_connections_auth_type" CHECK ("gateway"."mcp_connections"."auth_type" in ('none', 'bearer', 'header'))
);
--> statement-breakpoint
ALTER TABLE "gateway"."mcp_connections" ADD CONSTRAINT "mcp_connections_secret_entry_vault_entries_id_fk" FOREIGN KEY ("secret_entry") REFERENCES "gateway"."vault_entries"("id") ON DELETE set null ON UPDATE no action;