-- The insights' rollups (docs/decisions/0032-insights-rollup.md, 0034-insights-wait-ranks.md): the counts
-- /admin/insights reads, kept by statement-level triggers on applications, application_events, check_ins,
-- application_votes and insights_first_decisions, so any writer (the portal, SQL by hand, a TRUNCATE)
-- keeps them right.
--
-- The current definition of each function and trigger of this domain, re-applied after the migrations
-- whenever this file changes (src/lib/server/db/domain-sql.js). Change one here, not in a migration;
-- each statement must stay idempotent (CREATE OR REPLACE) and end at a `--> statement-breakpoint` line.
-- A new table or column is a migration (docs/data.md, "Functions and triggers").

CREATE OR REPLACE FUNCTION insights_week(t timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT date_trunc('week', t, 'UTC') $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION insights_day(t timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT date_trunc('day', t, 'UTC') $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION insights_shard(member text) RETURNS smallint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT (hashtext(member) & 15)::smallint $$;
--> statement-breakpoint
-- Applications: a new one counts +1 in its (week, shard, states) cell when its transaction commits
-- (insights_application_counted, a deferred row trigger), so the cell's row is locked only while that
-- commit is written, not from the insert to the commit: with the cell locked from the insert, every
-- submission of a week waited for the one before it to finish its transaction (bench/launch.js: 13 of
-- 16 inserts waiting at 66 members a second, drizzle/0034). The shard is the applicant's
-- (insights_shard), so two members committing at once rarely write the same row either. A statement that
-- changes or removes applications counts the rows it removed or replaced -1 and their new values +1,
-- summed per cell and applied in key order (two statements never lock cells in opposite orders). A
-- changed created_at (never done by the portal) moves the first decision's week.
CREATE OR REPLACE FUNCTION insights_application_counted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO insights_applications AS r (week, shard, review, allowlist, distribution, applications)
	VALUES (insights_week(NEW.created_at), insights_shard(NEW.applicant_address), NEW.review, NEW.allowlist,
		NEW.distribution, 1)
	ON CONFLICT (week, shard, review, allowlist, distribution)
	DO UPDATE SET applications = r.applications + 1;
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION insights_applications_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'UPDATE' THEN
		INSERT INTO insights_applications AS r (week, shard, review, allowlist, distribution, applications)
		SELECT week, shard, review, allowlist, distribution, sum(n) FROM (
			SELECT insights_week(created_at) AS week, insights_shard(applicant_address) AS shard, review, allowlist,
				distribution, 1 AS n
			FROM new_rows
			UNION ALL
			SELECT insights_week(created_at), insights_shard(applicant_address), review, allowlist, distribution, -1
			FROM old_rows
		) delta
		GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4, 5
		ON CONFLICT (week, shard, review, allowlist, distribution)
		DO UPDATE SET applications = r.applications + excluded.applications;
		UPDATE insights_first_decisions f
		SET week = insights_week(n.created_at), seconds = extract(epoch from f.decided_at - n.created_at)
		FROM new_rows n JOIN old_rows o ON o.id = n.id
		WHERE f.application_id = n.id AND n.created_at IS DISTINCT FROM o.created_at;
	ELSE
		INSERT INTO insights_applications AS r (week, shard, review, allowlist, distribution, applications)
		SELECT insights_week(created_at), insights_shard(applicant_address), review, allowlist, distribution, -count(*)
		FROM old_rows GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
		ON CONFLICT (week, shard, review, allowlist, distribution)
		DO UPDATE SET applications = r.applications + excluded.applications;
		DELETE FROM insights_first_decisions WHERE application_id IN (SELECT id FROM old_rows);
	END IF;
	RETURN NULL;
END $$;
--> statement-breakpoint
-- The insights' first decision (drizzle/0010): a withdrawal is the applicant's, not a decision, so the
-- time-to-decision chart leaves it out (its rows by review state count it as `withdrawn`).
CREATE OR REPLACE FUNCTION insights_events_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
	touched uuid[];
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO insights_first_decisions AS f (application_id, week, decided_at, seconds)
		SELECT e.application_id, insights_week(a.created_at), min(e.created_at),
			extract(epoch from min(e.created_at) - a.created_at)
		FROM new_rows e JOIN applications a ON a.id = e.application_id
		WHERE e.field = 'review' AND e.to_state NOT IN ('pending', 'withdrawn')
		GROUP BY e.application_id, a.created_at ORDER BY 1
		ON CONFLICT (application_id) DO UPDATE
		SET week = excluded.week, decided_at = excluded.decided_at, seconds = excluded.seconds
		WHERE excluded.decided_at < f.decided_at;
		RETURN NULL;
	END IF;
	IF TG_OP = 'UPDATE' THEN
		SELECT array_agg(id) INTO touched FROM (SELECT application_id FROM old_rows UNION SELECT application_id FROM new_rows) t(id);
	ELSE
		SELECT array_agg(DISTINCT application_id) INTO touched FROM old_rows;
	END IF;
	DELETE FROM insights_first_decisions WHERE application_id = ANY (touched);
	INSERT INTO insights_first_decisions AS f (application_id, week, decided_at, seconds)
	SELECT e.application_id, insights_week(a.created_at), min(e.created_at),
		extract(epoch from min(e.created_at) - a.created_at)
	FROM application_events e JOIN applications a ON a.id = e.application_id
	WHERE e.application_id = ANY (touched) AND e.field = 'review' AND e.to_state NOT IN ('pending', 'withdrawn')
	GROUP BY e.application_id, a.created_at ORDER BY 1
	ON CONFLICT (application_id) DO UPDATE
	SET week = excluded.week, decided_at = excluded.decided_at, seconds = excluded.seconds;
	RETURN NULL;
END $$;
--> statement-breakpoint
-- Check-ins: first the (day, shard) counts, which locks those rows in key order; then, in a statement
-- with a newer snapshot (READ COMMITTED), a member counts once a day when every check-in of theirs
-- that day is one of this statement's (a concurrent one of the same member waited on the same shard
-- row and is committed and visible by now). A removed check-in uncounts its member when none is left
-- that day. A changed one (never done by the portal) recounts its days from check_ins.
CREATE OR REPLACE FUNCTION insights_check_ins_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
	days timestamptz[];
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO insights_check_in_days AS r (day, shard, check_ins, members)
		SELECT insights_day(created_at), insights_shard(member_address), count(*), 0
		FROM new_rows GROUP BY 1, 2 ORDER BY 1, 2
		ON CONFLICT (day, shard) DO UPDATE SET check_ins = r.check_ins + excluded.check_ins;
		UPDATE insights_check_in_days r SET members = r.members + fresh.members
		FROM (
			SELECT p.day, insights_shard(p.member_address) AS shard, count(*) AS members
			FROM (
				SELECT insights_day(created_at) AS day, member_address, count(*) AS n
				FROM new_rows GROUP BY 1, 2
			) p
			WHERE p.n = (
				SELECT count(*) FROM check_ins c
				WHERE c.member_address = p.member_address AND c.created_at >= p.day AND c.created_at < p.day + interval '24 hours'
			)
			GROUP BY 1, 2
		) fresh
		WHERE r.day = fresh.day AND r.shard = fresh.shard;
	ELSIF TG_OP = 'DELETE' THEN
		UPDATE insights_check_in_days r SET check_ins = r.check_ins - gone.check_ins
		FROM (
			SELECT insights_day(created_at) AS day, insights_shard(member_address) AS shard, count(*) AS check_ins
			FROM old_rows GROUP BY 1, 2
		) gone
		WHERE r.day = gone.day AND r.shard = gone.shard;
		UPDATE insights_check_in_days r SET members = r.members - gone.members
		FROM (
			SELECT p.day, insights_shard(p.member_address) AS shard, count(*) AS members
			FROM (SELECT DISTINCT insights_day(created_at) AS day, member_address FROM old_rows) p
			WHERE NOT EXISTS (
				SELECT 1 FROM check_ins c
				WHERE c.member_address = p.member_address AND c.created_at >= p.day AND c.created_at < p.day + interval '24 hours'
			)
			GROUP BY 1, 2
		) gone
		WHERE r.day = gone.day AND r.shard = gone.shard;
	ELSE
		SELECT array_agg(day ORDER BY day) INTO days
		FROM (SELECT insights_day(created_at) FROM old_rows UNION SELECT insights_day(created_at) FROM new_rows) t(day);
		DELETE FROM insights_check_in_days WHERE day = ANY (days);
		INSERT INTO insights_check_in_days (day, shard, check_ins, members)
		SELECT d.day, insights_shard(c.member_address), count(*), count(DISTINCT c.member_address)
		FROM unnest(days) d(day)
		JOIN check_ins c ON c.created_at >= d.day AND c.created_at < d.day + interval '24 hours'
		GROUP BY 1, 2 ORDER BY 1, 2;
	END IF;
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION insights_truncated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	IF TG_TABLE_NAME = 'applications' THEN
		TRUNCATE insights_applications, insights_first_decisions;
	ELSIF TG_TABLE_NAME = 'application_events' THEN
		TRUNCATE insights_first_decisions;
	ELSE
		TRUNCATE insights_check_in_days;
	END IF;
	RETURN NULL;
END $$;
--> statement-breakpoint
SELECT create_statement_triggers('applications', 'insights_applications', 'insights_applications_changed',
	'insights_truncated', '{NULL,updated,deleted,truncated}');
--> statement-breakpoint
-- A constraint trigger, the only kind that waits for the commit, has no CREATE OR REPLACE: dropped first.
DROP TRIGGER IF EXISTS insights_applications_inserted ON applications;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER insights_applications_inserted AFTER INSERT ON applications
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION insights_application_counted();
--> statement-breakpoint
SELECT create_statement_triggers('application_events', 'insights_events', 'insights_events_changed', 'insights_truncated');
--> statement-breakpoint
SELECT create_statement_triggers('check_ins', 'insights_check_ins', 'insights_check_ins_changed', 'insights_truncated');
--> statement-breakpoint
-- Ranks for the wait chart's exact percentiles (docs/decisions/0034-insights-wait-ranks.md): how many
-- first decisions each (week, wait bucket) holds, kept by statement-level triggers on
-- insights_first_decisions (drizzle/0010), so whatever writes that table (the triggers on applications
-- and application_events, their backfill, TRUNCATE) keeps these counts in the same statement. The
-- chart finds each wanted rank's bucket from these few rows and reads only that bucket's values.

-- The wait's bucket: 4 per doubling (each about 19% wide) from 1 second up, [0, 1) one bucket, and
-- negative waits (a decision recorded before the submission: never done by the portal) mirrored below.
-- Non-decreasing in seconds, so buckets in order hold the values in order.
CREATE OR REPLACE FUNCTION insights_wait_bucket(seconds double precision) RETURNS smallint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT (CASE
		WHEN seconds >= 1 THEN 1 + floor(4 * ln(seconds) / ln(2::double precision))
		WHEN seconds >= 0 THEN 0
		WHEN seconds > -1 THEN -1
		ELSE -2 - floor(4 * ln(-seconds) / ln(2::double precision))
	END)::smallint
$$;
--> statement-breakpoint
-- Added rows count +1 in their (week, bucket), removed or replaced ones -1, summed per bucket and applied
-- in key order (two statements never lock buckets in opposite orders); added values widen min and max.
-- A removed value may have been a bucket's min or max: after the counts (whose row locks make a
-- concurrent writer of the same bucket commit first), a second statement, with a newer snapshot
-- (READ COMMITTED), recomputes min and max of those buckets from the index and drops empty ones.
CREATE OR REPLACE FUNCTION insights_wait_buckets_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO insights_wait_buckets AS b (week, bucket, decided, min_seconds, max_seconds)
		SELECT week, insights_wait_bucket(seconds), count(*), min(seconds), max(seconds)
		FROM new_rows GROUP BY 1, 2 ORDER BY 1, 2
		ON CONFLICT (week, bucket) DO UPDATE
		SET decided = b.decided + excluded.decided,
			min_seconds = least(b.min_seconds, excluded.min_seconds),
			max_seconds = greatest(b.max_seconds, excluded.max_seconds);
		RETURN NULL;
	ELSIF TG_OP = 'UPDATE' THEN
		INSERT INTO insights_wait_buckets AS b (week, bucket, decided, min_seconds, max_seconds)
		SELECT week, insights_wait_bucket(seconds), sum(n), min(seconds) FILTER (WHERE n > 0), max(seconds) FILTER (WHERE n > 0)
		FROM (
			SELECT week, seconds, 1 AS n FROM new_rows
			UNION ALL
			SELECT week, seconds, -1 FROM old_rows
		) delta
		GROUP BY 1, 2 ORDER BY 1, 2
		ON CONFLICT (week, bucket) DO UPDATE
		SET decided = b.decided + excluded.decided,
			min_seconds = least(b.min_seconds, excluded.min_seconds),
			max_seconds = greatest(b.max_seconds, excluded.max_seconds);
	ELSE
		INSERT INTO insights_wait_buckets AS b (week, bucket, decided, min_seconds, max_seconds)
		SELECT week, insights_wait_bucket(seconds), -count(*), NULL::double precision, NULL::double precision
		FROM old_rows GROUP BY 1, 2 ORDER BY 1, 2
		ON CONFLICT (week, bucket) DO UPDATE SET decided = b.decided + excluded.decided;
	END IF;
	UPDATE insights_wait_buckets b
	SET min_seconds = (
			SELECT min(f.seconds) FROM insights_first_decisions f
			WHERE f.week = b.week AND insights_wait_bucket(f.seconds) = b.bucket
		),
		max_seconds = (
			SELECT max(f.seconds) FROM insights_first_decisions f
			WHERE f.week = b.week AND insights_wait_bucket(f.seconds) = b.bucket
		)
	FROM (SELECT DISTINCT week, insights_wait_bucket(seconds) AS bucket FROM old_rows) o
	WHERE b.week = o.week AND b.bucket = o.bucket;
	DELETE FROM insights_wait_buckets b
	USING (SELECT DISTINCT week, insights_wait_bucket(seconds) AS bucket FROM old_rows) o
	WHERE b.week = o.week AND b.bucket = o.bucket AND b.decided = 0;
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION insights_wait_buckets_truncated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	TRUNCATE insights_wait_buckets;
	RETURN NULL;
END $$;
--> statement-breakpoint
SELECT create_statement_triggers('insights_first_decisions', 'insights_wait_buckets', 'insights_wait_buckets_changed', 'insights_wait_buckets_truncated');
--> statement-breakpoint
-- Reviewer votes: the votes chart of /admin/insights counted each reviewer's current
-- votes (their newest per application, created_at then id) from every vote, a sort of the whole table
-- (180 ms at 150,000 votes). This keeps those counts per reviewer and choice instead.
--
-- An insert adds, for each (application, reviewer) it touches, -1 for the reviewer's current vote before
-- it and +1 for the current one after. It runs after application_votes_inserted (triggers of an event
-- fire in name order), whose recount has locked the touched applications (FOR NO KEY UPDATE, the lock a
-- vote and a decision take); each statement here has a newer snapshot (READ COMMITTED), so of two
-- concurrent votes on one application the second sees the first and counts from there (decision 0033's
-- order). The portal only inserts votes; an UPDATE or DELETE made by hand recounts the reviewers it
-- touched, a TRUNCATE empties the counts.
CREATE OR REPLACE FUNCTION insights_reviewer_votes_add(reviewers text[], votes text[], deltas integer[]) RETURNS void
LANGUAGE sql AS $$
	INSERT INTO insights_reviewer_votes AS r (reviewer_address, vote, votes)
	SELECT t.r, t.v, sum(t.d)::int FROM unnest(reviewers, votes, deltas) AS t(r, v, d)
	GROUP BY t.r, t.v HAVING sum(t.d) <> 0
	ON CONFLICT (reviewer_address, vote) DO UPDATE SET votes = r.votes + excluded.votes;
	DELETE FROM insights_reviewer_votes WHERE votes = 0 AND reviewer_address = ANY(reviewers);
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION insights_reviewer_votes_recount(reviewers text[]) RETURNS void
LANGUAGE sql AS $$
	DELETE FROM insights_reviewer_votes WHERE reviewer_address = ANY(reviewers);
	INSERT INTO insights_reviewer_votes (reviewer_address, vote, votes)
	SELECT reviewer_address, vote, count(*)::int FROM (
		SELECT DISTINCT ON (application_id, reviewer_address) reviewer_address, vote
		FROM application_votes WHERE reviewer_address = ANY(reviewers)
		ORDER BY application_id, reviewer_address, created_at DESC, id DESC
	) AS current
	GROUP BY reviewer_address, vote;
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION insights_reviewer_votes_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
	reviewers text[];
	votes text[];
	deltas integer[];
BEGIN
	IF TG_OP = 'INSERT' THEN
		WITH pairs AS (SELECT DISTINCT application_id, reviewer_address FROM new_rows),
		before AS (
			SELECT DISTINCT ON (v.application_id, v.reviewer_address) v.reviewer_address, v.vote
			FROM application_votes AS v JOIN pairs AS p USING (application_id, reviewer_address)
			WHERE NOT EXISTS (SELECT 1 FROM new_rows AS n WHERE n.id = v.id)
			ORDER BY v.application_id, v.reviewer_address, v.created_at DESC, v.id DESC
		),
		after AS (
			SELECT DISTINCT ON (v.application_id, v.reviewer_address) v.reviewer_address, v.vote
			FROM application_votes AS v JOIN pairs AS p USING (application_id, reviewer_address)
			ORDER BY v.application_id, v.reviewer_address, v.created_at DESC, v.id DESC
		),
		changes AS (
			SELECT reviewer_address, vote, -1 AS d FROM before
			UNION ALL SELECT reviewer_address, vote, 1 FROM after
		)
		SELECT array_agg(reviewer_address), array_agg(vote), array_agg(d) INTO reviewers, votes, deltas FROM changes;
		IF reviewers IS NOT NULL THEN
			PERFORM insights_reviewer_votes_add(reviewers, votes, deltas);
		END IF;
	ELSE
		IF TG_OP = 'UPDATE' THEN
			SELECT array_agg(r) INTO reviewers
			FROM (SELECT reviewer_address FROM old_rows UNION SELECT reviewer_address FROM new_rows) AS t(r);
		ELSE
			SELECT array_agg(DISTINCT reviewer_address) INTO reviewers FROM old_rows;
		END IF;
		IF reviewers IS NOT NULL THEN
			PERFORM insights_reviewer_votes_recount(reviewers);
		END IF;
	END IF;
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION insights_reviewer_votes_truncated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM insights_reviewer_votes;
	RETURN NULL;
END $$;
--> statement-breakpoint
SELECT create_statement_triggers('application_votes', 'application_votes_reviewers', 'insights_reviewer_votes_changed',
	'insights_reviewer_votes_truncated', '{ins,upd,del,truncate}');
