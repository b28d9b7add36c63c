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
