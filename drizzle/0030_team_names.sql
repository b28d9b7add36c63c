CREATE TABLE "team_names" (
	"address" text PRIMARY KEY NOT NULL,
	"display_name" text NOT NULL,
	"updated_by" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "team_names_address_lowercase" CHECK ("team_names"."address" ~ '^0x[0-9a-f]{40}$'),
	CONSTRAINT "team_names_display_name_length" CHECK (char_length("team_names"."display_name") between 1 and 80)
);
