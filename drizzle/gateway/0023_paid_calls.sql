CREATE TABLE "gateway"."paid_calls" (
	"chain_id" integer NOT NULL,
	"payer" text NOT NULL,
	"nonce" text NOT NULL,
	"agent_ref" text NOT NULL,
	"pay_to" text NOT NULL,
	"amount_units" bigint NOT NULL,
	"state" text NOT NULL,
	"transaction" text,
	"claimed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"settled_at" timestamp with time zone,
	CONSTRAINT "paid_calls_chain_id_payer_nonce_pk" PRIMARY KEY("chain_id","payer","nonce"),
	CONSTRAINT "paid_calls_state" CHECK ("gateway"."paid_calls"."state" in ('running', 'settled'))
);
--> statement-breakpoint
ALTER TABLE "gateway"."audit_log" DROP CONSTRAINT "audit_log_actor_via";--> statement-breakpoint
ALTER TABLE "gateway"."llm_settings" ADD COLUMN "price_ask_units" integer;--> statement-breakpoint
ALTER TABLE "gateway"."llm_settings" ADD COLUMN "price_memory_tools" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "paid_calls_agent_day" ON "gateway"."paid_calls" USING btree ("agent_ref","settled_at");--> statement-breakpoint
ALTER TABLE "gateway"."audit_log" ADD CONSTRAINT "audit_log_actor_via" CHECK ("gateway"."audit_log"."actor_via" is null or ("gateway"."audit_log"."actor_wallet" is not null and "gateway"."audit_log"."actor_via" in ('delegate', 'renter', 'payer')));--> statement-breakpoint
ALTER TABLE "gateway"."llm_settings" ADD CONSTRAINT "llm_settings_price_ask_units" CHECK ("gateway"."llm_settings"."price_ask_units" between 1000 and 100000000);