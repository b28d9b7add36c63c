-- Hand-written (drizzle-kit cannot express either part); the admin review table and its bulk moves.
-- 1. pg_trgm serves the review table's search (`ilike '%…%'` over address, display name and contact)
--    from GIN indexes, on the Postgres server and in PGlite alike (PGlite loads it as an extension).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
-- 2. consume_rate_limit with a cost: a bulk move of n applications counts n calls at once, in the same
--    one statement as a single call (INSERT ... ON CONFLICT ... DO UPDATE ... RETURNING, database clock).
--    The four-argument function stays as it is.
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
