CREATE TABLE "gateway"."usage_ledger" (
	"agent_ref" text NOT NULL,
	"day" date NOT NULL,
	"scope" text NOT NULL,
	"tokens" bigint NOT NULL,
	"ceiling" bigint,
	CONSTRAINT "usage_ledger_agent_ref_day_scope_pk" PRIMARY KEY("agent_ref","day","scope")
);
