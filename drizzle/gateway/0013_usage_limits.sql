ALTER TABLE "gateway"."agent_keys" ADD COLUMN "tokens_per_day" bigint;--> statement-breakpoint
ALTER TABLE "gateway"."llm_settings" ADD COLUMN "tokens_per_day" bigint;--> statement-breakpoint
ALTER TABLE "gateway"."agent_keys" ADD CONSTRAINT "agent_keys_tokens_per_day" CHECK ("gateway"."agent_keys"."tokens_per_day" > 0);--> statement-breakpoint
ALTER TABLE "gateway"."llm_settings" ADD CONSTRAINT "llm_settings_tokens_per_day" CHECK ("gateway"."llm_settings"."tokens_per_day" > 0);