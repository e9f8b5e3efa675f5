CREATE TABLE "gateway"."consumed_nonces" (
	"key" text PRIMARY KEY NOT NULL,
	"consumed_at" timestamp with time zone DEFAULT now() NOT NULL
);
