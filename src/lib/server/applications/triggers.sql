-- The applications' database functions and triggers: the review table's answer search and the facts the
-- export reads from `applications` (the newest tx hash, the notes count), kept by triggers.
--
-- The current definition of each function and trigger of this domain, re-applied after the migrations
-- whenever this file changes (src/lib/server/db/domain-sql.js). Change one here, not in a migration;
-- each statement must stay idempotent (CREATE OR REPLACE) and end at a `--> statement-breakpoint` line.
-- A new table or column is a migration (docs/data.md, "Functions and triggers").

-- The review table's search over text answers: the string values (and multiple-choice elements) of
-- `answers` joined into one text, IMMUTABLE so that a pg_trgm GIN index can hold it (keys and JSON
-- punctuation are left out, so searching a question key does not match every application).
CREATE OR REPLACE FUNCTION answers_search_text(a jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
	SELECT coalesce(string_agg(v #>> '{}', E'\n'), '')
	FROM jsonb_path_query(a, 'lax $.*[*] ? (@.type() == "string")') AS v
$$;
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
CREATE OR REPLACE TRIGGER "application_events_last_tx_ins" AFTER INSERT ON "application_events"
FOR EACH ROW WHEN (NEW.tx_hash IS NOT NULL) EXECUTE FUNCTION applications_last_tx_changed();
--> statement-breakpoint
CREATE OR REPLACE TRIGGER "application_events_last_tx_upd" AFTER UPDATE ON "application_events"
FOR EACH ROW WHEN (OLD.tx_hash IS DISTINCT FROM NEW.tx_hash OR OLD.application_id <> NEW.application_id)
EXECUTE FUNCTION applications_last_tx_changed();
--> statement-breakpoint
CREATE OR REPLACE TRIGGER "application_events_last_tx_del" AFTER DELETE ON "application_events"
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
CREATE OR REPLACE TRIGGER "application_events_last_tx_truncate" AFTER TRUNCATE ON "application_events"
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
CREATE OR REPLACE TRIGGER "application_notes_count_ins" AFTER INSERT ON "application_notes"
FOR EACH ROW EXECUTE FUNCTION applications_notes_changed();
--> statement-breakpoint
CREATE OR REPLACE TRIGGER "application_notes_count_upd" AFTER UPDATE ON "application_notes"
FOR EACH ROW WHEN (OLD.application_id <> NEW.application_id) EXECUTE FUNCTION applications_notes_changed();
--> statement-breakpoint
CREATE OR REPLACE TRIGGER "application_notes_count_del" AFTER DELETE ON "application_notes"
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
CREATE OR REPLACE TRIGGER "application_notes_count_truncate" AFTER TRUNCATE ON "application_notes"
FOR EACH STATEMENT EXECUTE FUNCTION applications_notes_truncated();
