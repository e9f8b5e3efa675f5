ALTER TABLE "gateway"."llm_settings" ADD COLUMN "api_key_provider" text;--> statement-breakpoint
ALTER TABLE "gateway"."llm_settings" ADD COLUMN "api_key_base_url" text;--> statement-breakpoint
ALTER TABLE "gateway"."llm_settings" ADD COLUMN "api_key_wallet" text;
-- Nothing is backfilled: nobody can tell whether a stored key (or a choice of no key) was entered for the provider and base URL the row holds now, or by the wallet that owns the agent now (a later owner may have changed the base URL before the agent came back). Every row stored before this migration shows reenter_required, and replies answer 409 credential_reentry_required, until the owner saves apiKey (or apiKey: null for none) once more.
