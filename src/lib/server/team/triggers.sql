-- The team's trigger: `reviewers` is a view of the team's programme-wide reviewers (drizzle/0029, issue
-- 59) whose INSERT, UPDATE and DELETE write team_members, so SQL written for the old table still works.
--
-- The current definition of each function and trigger of this domain, re-applied after the migrations
-- whenever this file changes (src/lib/server/db/domain-sql.js). Change one here, not in a migration;
-- each statement must stay idempotent (CREATE OR REPLACE) and end at a `--> statement-breakpoint` line.
-- A new table or column is a migration (docs/data.md, "Functions and triggers").

CREATE OR REPLACE FUNCTION reviewers_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO team_members (address, role, program_id, added_by, added_at)
			VALUES (NEW.address, 'reviewer', NULL, NEW.added_by, coalesce(NEW.added_at, now()))
			ON CONFLICT DO NOTHING;
		RETURN NEW;
	ELSIF TG_OP = 'UPDATE' THEN
		UPDATE team_members SET address = NEW.address, added_by = NEW.added_by, added_at = NEW.added_at
			WHERE address = OLD.address AND role = 'reviewer' AND program_id IS NULL;
		RETURN NEW;
	END IF;
	DELETE FROM team_members WHERE address = OLD.address AND role = 'reviewer' AND program_id IS NULL;
	RETURN OLD;
END $$;
--> statement-breakpoint
CREATE OR REPLACE TRIGGER reviewers_write INSTEAD OF INSERT OR UPDATE OR DELETE ON "reviewers"
	FOR EACH ROW EXECUTE FUNCTION reviewers_write();
