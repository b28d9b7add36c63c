CREATE TABLE "community_settings" (
	"id" smallint PRIMARY KEY DEFAULT 1 NOT NULL,
	"name" text,
	"description" text,
	"links" jsonb,
	"accent" text,
	"translations" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"logo" "bytea",
	"logo_type" text,
	"logo_sha256" text,
	"updated_by" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "community_settings_one_row" CHECK ("community_settings"."id" = 1),
	CONSTRAINT "community_settings_accent" CHECK ("community_settings"."accent" ~ '^#[0-9a-f]{6}$'),
	CONSTRAINT "community_settings_name_length" CHECK (char_length("community_settings"."name") between 1 and 60),
	CONSTRAINT "community_settings_description_length" CHECK (char_length("community_settings"."description") between 1 and 300),
	CONSTRAINT "community_settings_logo_whole" CHECK (("community_settings"."logo" is null) = ("community_settings"."logo_type" is null) and ("community_settings"."logo" is null) = ("community_settings"."logo_sha256" is null)),
	CONSTRAINT "community_settings_logo_size" CHECK (octet_length("community_settings"."logo") <= 524288)
);
--> statement-breakpoint
CREATE TABLE "community_settings_events" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "community_settings_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"actor" text NOT NULL,
	"changed" text[] NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "community_settings_events_at" ON "community_settings_events" USING btree ("at");