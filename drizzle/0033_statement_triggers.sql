-- create_statement_triggers: the four statement-level triggers (insert, update, delete, truncate) of a
-- rollup, declared by the domain files (src/lib/server/platform/triggers.sql holds its current text).
CREATE OR REPLACE FUNCTION create_statement_triggers(
	p_table text,
	p_prefix text,
	p_changed text,
	p_truncated text,
	p_suffixes text[] DEFAULT '{inserted,updated,deleted,truncated}'
) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
	events CONSTANT text[] := '{INSERT,UPDATE,DELETE,TRUNCATE}';
	transitions CONSTANT text[] := ARRAY[
		'REFERENCING NEW TABLE AS new_rows', 'REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows',
		'REFERENCING OLD TABLE AS old_rows', ''];
BEGIN
	FOR i IN 1..4 LOOP
		CONTINUE WHEN p_suffixes[i] IS NULL;
		EXECUTE format('CREATE OR REPLACE TRIGGER %I AFTER %s ON %I %s FOR EACH STATEMENT EXECUTE FUNCTION %I()',
			p_prefix || '_' || p_suffixes[i], events[i], p_table, transitions[i],
			CASE WHEN i = 4 THEN p_truncated ELSE p_changed END);
	END LOOP;
END $$;
--> statement-breakpoint
-- application_votes_changed without its own DISTINCT and null check (application_votes_recount does both).
CREATE OR REPLACE FUNCTION application_votes_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
	touched uuid[];
BEGIN
	-- The ids as the rows hold them: the recount takes each once, and a statement that changed no row
	-- leaves touched null, which recounts nothing.
	IF TG_OP = 'INSERT' THEN
		SELECT array_agg(application_id) INTO touched FROM new_rows;
	ELSIF TG_OP = 'UPDATE' THEN
		SELECT array_agg(application_id) INTO touched
		FROM (SELECT application_id FROM old_rows UNION ALL SELECT application_id FROM new_rows) AS t;
	ELSE
		SELECT array_agg(application_id) INTO touched FROM old_rows;
	END IF;
	PERFORM application_votes_recount(touched);
	RETURN NULL;
END $$;
