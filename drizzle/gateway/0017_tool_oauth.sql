ALTER TABLE "gateway"."mcp_connections" DROP CONSTRAINT "mcp_connections_auth_type";--> statement-breakpoint
ALTER TABLE "gateway"."mcp_connections" ADD COLUMN "oauth" jsonb;--> statement-breakpoint
ALTER TABLE "gateway"."mcp_connections" ADD COLUMN "token_entry" uuid;--> statement-breakpoint
ALTER TABLE "gateway"."mcp_connections" ADD CONSTRAINT "mcp_connections_token_entry_vault_entries_id_fk" FOREIGN KEY ("token_entry") REFERENCES "gateway"."vault_entries"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gateway"."mcp_connections" ADD CONSTRAINT "mcp_connections_auth_type" CHECK ("gateway"."mcp_connections"."auth_type" in ('none', 'bearer', 'header', 'oauth'));