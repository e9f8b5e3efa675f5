CREATE TABLE "gateway"."audit_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "gateway"."audit_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"chain_id" integer NOT NULL,
	"collection" text NOT NULL,
	"token_id" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor_wallet" text,
	"actor_key_id" uuid,
	"action" text NOT NULL,
	"target" jsonb NOT NULL,
	"outcome" text NOT NULL,
	"duration_ms" integer,
	"arguments_sha256" text,
	CONSTRAINT "audit_log_actor" CHECK (("gateway"."audit_log"."actor_wallet" is null) <> ("gateway"."audit_log"."actor_key_id" is null)),
	CONSTRAINT "audit_log_actor_wallet" CHECK ("gateway"."audit_log"."actor_wallet" ~ '^0x[0-9a-f]{40}$'),
	CONSTRAINT "audit_log_action" CHECK ("gateway"."audit_log"."action" ~ '^[a-z_]{1,32}\.[a-z_]{1,32}$'),
	CONSTRAINT "audit_log_outcome" CHECK ("gateway"."audit_log"."outcome" ~ '^[a-z0-9_]{1,64}$'),
	CONSTRAINT "audit_log_arguments_sha256" CHECK ("gateway"."audit_log"."arguments_sha256" ~ '^[0-9a-f]{64}$')
);
--> statement-breakpoint
CREATE INDEX "audit_log_agent_id" ON "gateway"."audit_log" USING btree ("chain_id","collection","token_id","id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "audit_log_at" ON "gateway"."audit_log" USING btree ("at");