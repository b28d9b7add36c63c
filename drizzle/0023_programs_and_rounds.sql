-- Programmes and rounds (issue 57, docs/data.md): what exists becomes programme `membership` with one
-- open-ended round "Open" holding every form and application. Its name is the community's name, which
-- the build holds, not the database: written here as the default one ('Member portal'), and replaced by
-- PUBLIC_COMMUNITY_NAME at the server's start while it still reads so (programs/membership.ts).
CREATE TABLE "programs" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "programs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"translations" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"archived_at" timestamp with time zone,
	CONSTRAINT "programs_slug_unique" UNIQUE("slug"),
	CONSTRAINT "programs_slug_format" CHECK ("programs"."slug" ~ '^[a-z][a-z0-9-]{0,39}$'),
	CONSTRAINT "programs_name_length" CHECK (char_length("programs"."name") between 1 and 80),
	CONSTRAINT "programs_description_length" CHECK (char_length("programs"."description") <= 2000),
	CONSTRAINT "programs_translations_object" CHECK (jsonb_typeof("programs"."translations") = 'object')
);
--> statement-breakpoint
CREATE TABLE "rounds" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "rounds_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"program_id" integer NOT NULL,
	"name" text NOT NULL,
	"opens_at" timestamp with time zone NOT NULL,
	"closes_at" timestamp with time zone,
	"release_mode" text DEFAULT 'immediate' NOT NULL,
	"release_at" timestamp with time zone,
	"released_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "rounds_name_length" CHECK (char_length("rounds"."name") between 1 and 80),
	CONSTRAINT "rounds_release_mode_known" CHECK ("rounds"."release_mode" in ('immediate', 'together')),
	CONSTRAINT "rounds_closes_after_opens" CHECK ("rounds"."closes_at" is null or "rounds"."closes_at" > "rounds"."opens_at")
);
--> statement-breakpoint
INSERT INTO "programs" ("slug", "name") VALUES ('membership', 'Member portal');--> statement-breakpoint
INSERT INTO "rounds" ("program_id", "name", "opens_at", "release_mode")
	SELECT "id", 'Open', coalesce(least(
		(SELECT min("created_at") FROM "applications"),
		(SELECT min("created_at") FROM "application_forms")), now()), 'immediate'
	FROM "programs" WHERE "slug" = 'membership';--> statement-breakpoint
ALTER TABLE "application_forms" ADD COLUMN "program_id" integer;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "program_id" integer;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "round_id" integer;--> statement-breakpoint
UPDATE "application_forms" SET "program_id" = (SELECT "id" FROM "programs" WHERE "slug" = 'membership');--> statement-breakpoint
UPDATE "applications" SET "program_id" = "r"."program_id", "round_id" = "r"."id"
	FROM "rounds" "r" WHERE "r"."name" = 'Open';--> statement-breakpoint
-- The portal names both on every insert; a row written by hand without them gets the `membership`
-- programme (or its form's), and that programme's round open at the row's created_at (else the last one
-- opened before it, else its first), so that SQL written before programmes keeps working.
CREATE FUNCTION application_forms_program_default() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.program_id IS NULL THEN
		NEW.program_id := (SELECT id FROM programs ORDER BY (slug = 'membership') DESC, id LIMIT 1);
	END IF;
	RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER application_forms_program_default BEFORE INSERT ON "application_forms"
	FOR EACH ROW EXECUTE FUNCTION application_forms_program_default();--> statement-breakpoint
CREATE FUNCTION applications_round_default() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	at timestamptz := coalesce(NEW.created_at, now());
BEGIN
	IF NEW.program_id IS NULL THEN
		NEW.program_id := coalesce(
			(SELECT program_id FROM application_forms WHERE id = NEW.form_id),
			(SELECT id FROM programs ORDER BY (slug = 'membership') DESC, id LIMIT 1));
	END IF;
	IF NEW.round_id IS NULL THEN
		NEW.round_id := coalesce(
			(SELECT id FROM rounds WHERE program_id = NEW.program_id AND opens_at <= at
				ORDER BY (closes_at IS NULL OR closes_at > at) DESC, opens_at DESC, id DESC LIMIT 1),
			(SELECT id FROM rounds WHERE program_id = NEW.program_id ORDER BY opens_at, id LIMIT 1));
	END IF;
	RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER applications_round_default BEFORE INSERT ON "applications"
	FOR EACH ROW EXECUTE FUNCTION applications_round_default();--> statement-breakpoint
ALTER TABLE "application_forms" ALTER COLUMN "program_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "applications" ALTER COLUMN "program_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "applications" ALTER COLUMN "round_id" SET NOT NULL;--> statement-breakpoint
-- One live application per programme and member (was: per member). `withdrawn` joins `rejected` here when
-- that review state exists.
DROP INDEX "applications_one_active_per_member";--> statement-breakpoint
ALTER TABLE "rounds" ADD CONSTRAINT "rounds_program_id_programs_id_fk" FOREIGN KEY ("program_id") REFERENCES "public"."programs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "rounds_program_opens_idx" ON "rounds" USING btree ("program_id","opens_at");--> statement-breakpoint
ALTER TABLE "application_forms" ADD CONSTRAINT "application_forms_program_id_programs_id_fk" FOREIGN KEY ("program_id") REFERENCES "public"."programs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "applications" ADD CONSTRAINT "applications_program_id_programs_id_fk" FOREIGN KEY ("program_id") REFERENCES "public"."programs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "applications" ADD CONSTRAINT "applications_round_id_rounds_id_fk" FOREIGN KEY ("round_id") REFERENCES "public"."rounds"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "applications_one_live_per_program" ON "applications" USING btree ("program_id","applicant_address") WHERE "applications"."review" <> 'rejected';--> statement-breakpoint
CREATE INDEX "applications_round_idx" ON "applications" USING btree ("round_id");
