-- The platform's database functions: the rate limiter's counter (rate-limit.ts, files/sweep.ts) and the
-- statement-level triggers the other domains' rollups declare through it (create_statement_triggers).
--
-- The current definition of each function and trigger of this domain, re-applied after the migrations
-- whenever this file changes (src/lib/server/db/domain-sql.js). Change one here, not in a migration;
-- each statement must stay idempotent (CREATE OR REPLACE) and end at a `--> statement-breakpoint` line.
-- A new table or column is a migration (docs/data.md, "Functions and triggers").

-- consume_rate_limit(subject, action, limit, window): counts one call and says whether it is allowed.
-- The increment and the read are one INSERT ... ON CONFLICT ... DO UPDATE ... RETURNING, so concurrent
-- callers serialise on the row lock and can never pass the limit together. The window starts at the
-- subject's first call and is timed by the database clock (now()); an ended window restarts in place.
CREATE OR REPLACE FUNCTION consume_rate_limit(
	p_subject text,
	p_action text,
	p_limit integer,
	p_window interval
) RETURNS TABLE (allowed boolean, used integer, reset_at timestamptz)
LANGUAGE sql VOLATILE AS $$
	INSERT INTO rate_limit_counters AS c (subject, action, window_started_at, window_ends_at, count)
	VALUES (p_subject, p_action, now(), now() + p_window, 1)
	ON CONFLICT (subject, action) DO UPDATE SET
		window_started_at = CASE WHEN c.window_ends_at <= now() THEN now() ELSE c.window_started_at END,
		window_ends_at = CASE WHEN c.window_ends_at <= now() THEN now() + p_window ELSE c.window_ends_at END,
		count = CASE WHEN c.window_ends_at <= now() THEN 1 ELSE c.count + 1 END
	RETURNING c.count <= p_limit, c.count, c.window_ends_at;
$$;
--> statement-breakpoint
-- consume_rate_limit with a cost: a bulk move of n applications counts n calls at once, in the same one
-- statement as a single call (INSERT ... ON CONFLICT ... DO UPDATE ... RETURNING, database clock).
CREATE OR REPLACE FUNCTION consume_rate_limit(
	p_subject text,
	p_action text,
	p_limit integer,
	p_window interval,
	p_cost integer
) RETURNS TABLE (allowed boolean, used integer, reset_at timestamptz)
LANGUAGE sql VOLATILE AS $$
	INSERT INTO rate_limit_counters AS c (subject, action, window_started_at, window_ends_at, count)
	VALUES (p_subject, p_action, now(), now() + p_window, p_cost)
	ON CONFLICT (subject, action) DO UPDATE SET
		window_started_at = CASE WHEN c.window_ends_at <= now() THEN now() ELSE c.window_started_at END,
		window_ends_at = CASE WHEN c.window_ends_at <= now() THEN now() + p_window ELSE c.window_ends_at END,
		count = CASE WHEN c.window_ends_at <= now() THEN p_cost ELSE c.count + p_cost END
	RETURNING c.count <= p_limit, c.count, c.window_ends_at;
$$;
--> statement-breakpoint
-- create_statement_triggers(table, prefix, changed, truncated[, suffixes]): the four statement-level
-- triggers a rollup keeps on a table, named <prefix>_inserted, _updated, _deleted and _truncated (or the
-- four suffixes given, in that order; a NULL one leaves that trigger to the caller). The first three run
-- `changed` with the statement's transition tables (new_rows, old_rows); a TRUNCATE, which has none,
-- runs `truncated`. Idempotent (CREATE OR REPLACE TRIGGER), so a domain file calls it with SELECT.
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
