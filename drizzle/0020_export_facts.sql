ALTER TABLE "applications" ADD COLUMN "last_tx_hash" text;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "notes_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Hand-written below the columns: applications.csv read, for every row, the newest tx hash of the
-- application's audit rows and the count of its notes, two index lookups per row (10 of the 11 s the
-- database spent on a 1,000,000-row export). The row now carries both, kept by the triggers below
-- (docs/decisions/0044-export-facts-on-the-row.md). The portal only inserts audit rows and notes; an
-- UPDATE, DELETE or TRUNCATE made by hand is followed too.
--
-- The backfill writes only these two columns: the statement triggers that follow an application's
-- states (insights, open assignments) have nothing to count in it and are held off for its length.
ALTER TABLE "applications" DISABLE TRIGGER "insights_applications_updated";
--> statement-breakpoint
ALTER TABLE "applications" DISABLE TRIGGER "applications_open_upd";
--> statement-breakpoint
-- One pass over the rows that have either (every row of the table written once more, with its indexes).
UPDATE "applications" AS a SET "last_tx_hash" = f.tx_hash, "notes_count" = f.notes
FROM (
	SELECT coalesce(t.application_id, n.application_id) AS id, t.tx_hash, coalesce(n.notes, 0) AS notes
	FROM (
		SELECT DISTINCT ON (application_id) application_id, tx_hash FROM application_events
		WHERE tx_hash IS NOT NULL ORDER BY application_id, id DESC
	) AS t
	FULL JOIN (SELECT application_id, count(*)::int AS notes FROM application_notes GROUP BY application_id) AS n
		ON n.application_id = t.application_id
) AS f
WHERE f.id = a.id;
--> statement-breakpoint
ALTER TABLE "applications" ENABLE TRIGGER "insights_applications_updated";
--> statement-breakpoint
ALTER TABLE "applications" ENABLE TRIGGER "applications_open_upd";
--> statement-breakpoint
-- The newest tx hash (highest audit id) of one application, written only when it differs.
CREATE OR REPLACE FUNCTION applications_last_tx_refresh(application uuid) RETURNS void
LANGUAGE sql AS $$
	UPDATE applications AS a SET last_tx_hash = t.tx_hash
	FROM (
		SELECT (SELECT e.tx_hash FROM application_events AS e
			WHERE e.application_id = application AND e.tx_hash IS NOT NULL ORDER BY e.id DESC LIMIT 1) AS tx_hash
	) AS t
	WHERE a.id = application AND a.last_tx_hash IS DISTINCT FROM t.tx_hash;
$$;
--> statement-breakpoint
-- Row triggers with a WHEN: an audit row without a tx hash (most of them: every submission, every
-- review move) does not call the function at all.
CREATE OR REPLACE FUNCTION applications_last_tx_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP IN ('UPDATE', 'DELETE') THEN PERFORM applications_last_tx_refresh(OLD.application_id); END IF;
	IF TG_OP IN ('INSERT', 'UPDATE') THEN PERFORM applications_last_tx_refresh(NEW.application_id); END IF;
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "application_events_last_tx_ins" AFTER INSERT ON "application_events"
FOR EACH ROW WHEN (NEW.tx_hash IS NOT NULL) EXECUTE FUNCTION applications_last_tx_changed();
--> statement-breakpoint
CREATE TRIGGER "application_events_last_tx_upd" AFTER UPDATE ON "application_events"
FOR EACH ROW WHEN (OLD.tx_hash IS DISTINCT FROM NEW.tx_hash OR OLD.application_id <> NEW.application_id)
EXECUTE FUNCTION applications_last_tx_changed();
--> statement-breakpoint
CREATE TRIGGER "application_events_last_tx_del" AFTER DELETE ON "application_events"
FOR EACH ROW WHEN (OLD.tx_hash IS NOT NULL) EXECUTE FUNCTION applications_last_tx_changed();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION applications_last_tx_truncated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	UPDATE applications SET last_tx_hash = NULL WHERE last_tx_hash IS NOT NULL;
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "application_events_last_tx_truncate" AFTER TRUNCATE ON "application_events"
FOR EACH STATEMENT EXECUTE FUNCTION applications_last_tx_truncated();
--> statement-breakpoint
-- Notes counted by increments, which concurrent notes on one application add up right (the second
-- waits for the first's row lock, then adds to what the first wrote).
CREATE OR REPLACE FUNCTION applications_notes_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP IN ('UPDATE', 'DELETE') THEN
		UPDATE applications SET notes_count = notes_count - 1 WHERE id = OLD.application_id;
	END IF;
	IF TG_OP IN ('INSERT', 'UPDATE') THEN
		UPDATE applications SET notes_count = notes_count + 1 WHERE id = NEW.application_id;
	END IF;
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "application_notes_count_ins" AFTER INSERT ON "application_notes"
FOR EACH ROW EXECUTE FUNCTION applications_notes_changed();
--> statement-breakpoint
CREATE TRIGGER "application_notes_count_upd" AFTER UPDATE ON "application_notes"
FOR EACH ROW WHEN (OLD.application_id <> NEW.application_id) EXECUTE FUNCTION applications_notes_changed();
--> statement-breakpoint
CREATE TRIGGER "application_notes_count_del" AFTER DELETE ON "application_notes"
FOR EACH ROW EXECUTE FUNCTION applications_notes_changed();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION applications_notes_truncated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	UPDATE applications SET notes_count = 0 WHERE notes_count <> 0;
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "application_notes_count_truncate" AFTER TRUNCATE ON "application_notes"
FOR EACH STATEMENT EXECUTE FUNCTION applications_notes_truncated();
