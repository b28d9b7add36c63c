-- The programmes' triggers: the programme (and round) of a form or application written without them.
--
-- The current definition of each function and trigger of this domain, re-applied after the migrations
-- whenever this file changes (src/lib/server/db/domain-sql.js). Change one here, not in a migration;
-- each statement must stay idempotent (CREATE OR REPLACE) and end at a `--> statement-breakpoint` line.
-- A new table or column is a migration (docs/data.md, "Functions and triggers").

-- The portal names the programme (and an application's round) on every insert; a row written by hand
-- without them gets the `membership` programme (or its form's), and that programme's round open at the
-- row's created_at (else the last one opened before it, else its first), so that SQL written before
-- programmes keeps working.
CREATE OR REPLACE FUNCTION application_forms_program_default() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.program_id IS NULL THEN
		NEW.program_id := (SELECT id FROM programs ORDER BY (slug = 'membership') DESC, id LIMIT 1);
	END IF;
	RETURN NEW;
END $$;
--> statement-breakpoint
CREATE OR REPLACE TRIGGER application_forms_program_default BEFORE INSERT ON "application_forms"
	FOR EACH ROW EXECUTE FUNCTION application_forms_program_default();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION applications_round_default() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;
--> statement-breakpoint
CREATE OR REPLACE TRIGGER applications_round_default BEFORE INSERT ON "applications"
	FOR EACH ROW EXECUTE FUNCTION applications_round_default();
