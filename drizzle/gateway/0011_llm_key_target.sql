ALTER TABLE "gateway"."llm_settings" ADD COLUMN "api_key_provider" text;--> statement-breakpoint
ALTER TABLE "gateway"."llm_settings" ADD COLUMN "api_key_base_url" text;--> statement-breakpoint
-- Settings without a key are bound to what they say (there is no key to follow anything). A key stored before this migration stays unbound (null): nobody can tell whether its provider or base URL was changed after it was entered (by a later owner, before the agent came back), so it is never sent again and shows as reenter_required until the owner enters it once more.
UPDATE "gateway"."llm_settings" SET "api_key_provider" = "provider", "api_key_base_url" = "base_url" WHERE "api_key_entry" IS NULL;
