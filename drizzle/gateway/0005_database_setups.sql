CREATE TABLE "gateway"."database_setups" (
	"id" uuid PRIMARY KEY NOT NULL,
	"chain_id" integer NOT NULL,
	"collection" text NOT NULL,
	"token_id" text NOT NULL,
	"host" text NOT NULL,
	"port" integer NOT NULL,
	"database" text NOT NULL,
	"user_name" text NOT NULL,
	"ssl" text NOT NULL,
	"password_entry" uuid,
	"offered_tables" jsonb NOT NULL,
	"active_tables" jsonb,
	"status" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"activated_at" timestamp with time zone,
	CONSTRAINT "database_setups_status" CHECK ("gateway"."database_setups"."status" in ('pending', 'active')),
	CONSTRAINT "database_setups_ssl" CHECK ("gateway"."database_setups"."ssl" in ('require', 'disable'))
);
--> statement-breakpoint
ALTER TABLE "gateway"."database_setups" ADD CONSTRAINT "database_setups_password_entry_vault_entries_id_fk" FOREIGN KEY ("password_entry") REFERENCES "gateway"."vault_entries"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "database_setups_agent" ON "gateway"."database_setups" USING btree ("chain_id","collection","token_id");