ALTER TABLE "gateway"."mcp_connections" ADD COLUMN "created_by_wallet" text;--> statement-breakpoint
ALTER TABLE "gateway"."mcp_connections" ADD CONSTRAINT "mcp_connections_created_by_wallet" CHECK ("gateway"."mcp_connections"."created_by_wallet" ~ '^0x[0-9a-f]{40}$');--> statement-breakpoint
-- Existing connections with a credential: the wallet that entered it stands for the registrant (it registered the connection or re-entered its credential). The others stay null: unknown registrant, re-entry required.
UPDATE "gateway"."mcp_connections" SET "created_by_wallet" = v."owner_wallet" FROM "gateway"."vault_entries" v WHERE v."id" = "gateway"."mcp_connections"."secret_entry" AND v."owner_wallet" IS NOT NULL;
