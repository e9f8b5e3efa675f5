ALTER TABLE "gateway"."mcp_connections" ADD COLUMN "timeout_ms" integer;--> statement-breakpoint
ALTER TABLE "gateway"."mcp_connections" ADD COLUMN "session_id" text;--> statement-breakpoint
ALTER TABLE "gateway"."mcp_connections" ADD COLUMN "protocol_version" text;--> statement-breakpoint
ALTER TABLE "gateway"."mcp_connections" ADD CONSTRAINT "mcp_connections_timeout_ms" CHECK ("gateway"."mcp_connections"."timeout_ms" between 1000 and 60000);