ALTER TABLE "gateway"."agent_keys" ADD COLUMN "created_via" text;--> statement-breakpoint
ALTER TABLE "gateway"."audit_log" ADD COLUMN "actor_via" text;--> statement-breakpoint
ALTER TABLE "gateway"."llm_settings" ADD COLUMN "access_delegates" text DEFAULT 'use' NOT NULL;--> statement-breakpoint
ALTER TABLE "gateway"."llm_settings" ADD COLUMN "access_renters" text DEFAULT 'use' NOT NULL;--> statement-breakpoint
ALTER TABLE "gateway"."agent_keys" ADD CONSTRAINT "agent_keys_created_via" CHECK ("gateway"."agent_keys"."created_via" in ('delegate'));--> statement-breakpoint
ALTER TABLE "gateway"."audit_log" ADD CONSTRAINT "audit_log_actor_via" CHECK ("gateway"."audit_log"."actor_via" is null or ("gateway"."audit_log"."actor_wallet" is not null and "gateway"."audit_log"."actor_via" in ('delegate', 'renter')));--> statement-breakpoint
ALTER TABLE "gateway"."llm_settings" ADD CONSTRAINT "llm_settings_access_delegates" CHECK ("gateway"."llm_settings"."access_delegates" in ('none', 'use', 'admin'));--> statement-breakpoint
ALTER TABLE "gateway"."llm_settings" ADD CONSTRAINT "llm_settings_access_renters" CHECK ("gateway"."llm_settings"."access_renters" in ('none', 'use'));