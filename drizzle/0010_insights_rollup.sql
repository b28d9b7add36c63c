-- The insights rollup (docs/decisions/0032-insights-rollup.md): small tables that the same statement
-- that writes applications, application_events or check_ins keeps up to date through statement-level
-- triggers, so each chart of /admin/insights reads a few hundred rows whatever the history's size.
-- They hold nothing the raw tables do not say; the backfill at the end and every trigger compute
-- them the way the charts used to compute from the raw rows (tests/integration/insights-rollup.test.ts).

-- Applications by UTC week of submission (Monday) and current state in every field: the per-week
-- chart and the funnel.
CREATE TABLE IF NOT EXISTS "insights_applications" (
	"week" timestamp with time zone NOT NULL,
	"review" "review_state" NOT NULL,
	"allowlist" "allowlist_state" NOT NULL,
	"distribution" "distribution_state" NOT NULL,
	"applications" integer NOT NULL,
	CONSTRAINT "insights_applications_week_review_allowlist_distribution_pk" PRIMARY KEY("week","review","allowlist","distribution")
);
--> statement-breakpoint
-- Each application's first decision (its first review move out of pending), by week of submission:
-- the percentiles need every value, so one narrow row per decided application.
CREATE TABLE IF NOT EXISTS "insights_first_decisions" (
	"application_id" uuid PRIMARY KEY NOT NULL,
	"week" timestamp with time zone NOT NULL,
	"decided_at" timestamp with time zone NOT NULL,
	"seconds" double precision NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "insights_first_decisions_week_idx" ON "insights_first_decisions" USING btree ("week","seconds");--> statement-breakpoint
-- Check-ins and distinct members per UTC day, in 16 shards by member (hashtext), so concurrent check-ins
-- of different members rarely wait on one row, and two of the same member always meet on the same one.
CREATE TABLE IF NOT EXISTS "insights_check_in_days" (
	"day" timestamp with time zone NOT NULL,
	"shard" smallint NOT NULL,
	"check_ins" integer NOT NULL,
	"members" integer NOT NULL,
	CONSTRAINT "insights_check_in_days_day_shard_pk" PRIMARY KEY("day","shard")
);
--> statement-breakpoint
CREATE OR REPLACE FUNCTION insights_week(t timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT date_trunc('week', t, 'UTC') $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION insights_day(t timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT date_trunc('day', t, 'UTC') $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION insights_shard(member text) RETURNS smallint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT (hashtext(member) & 15)::smallint $$;
--> statement-breakpoint
-- Applications: the rows a statement added count +1 in their (week, states) cell, the rows it removed
-- or replaced -1, summed per cell and applied in key order (two statements never lock cells in
-- opposite orders). A changed created_at (never done by the portal) moves the first decision's week.
CREATE OR REPLACE FUNCTION insights_applications_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO insights_applications AS r (week, review, allowlist, distribution, applications)
		SELECT insights_week(created_at), review, allowlist, distribution, count(*)
		FROM new_rows GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
		ON CONFLICT (week, review, allowlist, distribution)
		DO UPDATE SET applications = r.applications + excluded.applications;
	ELSIF TG_OP = 'UPDATE' THEN
		INSERT INTO insights_applications AS r (week, review, allowlist, distribution, applications)
		SELECT week, review, allowlist, distribution, sum(n) FROM (
			SELECT insights_week(created_at) AS week, review, allowlist, distribution, 1 AS n FROM new_rows
			UNION ALL
			SELECT insights_week(created_at), review, allowlist, distribution, -1 FROM old_rows
		) delta
		GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4
		ON CONFLICT (week, review, allowlist, distribution)
		DO UPDATE SET applications = r.applications + excluded.applications;
		UPDATE insights_first_decisions f
		SET week = insights_week(n.created_at), seconds = extract(epoch from f.decided_at - n.created_at)
		FROM new_rows n JOIN old_rows o ON o.id = n.id
		WHERE f.application_id = n.id AND n.created_at IS DISTINCT FROM o.created_at;
	ELSE
		INSERT INTO insights_applications AS r (week, review, allowlist, distribution, applications)
		SELECT insights_week(created_at), review, allowlist, distribution, -count(*)
		FROM old_rows GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
		ON CONFLICT (week, review, allowlist, distribution)
		DO UPDATE SET applications = r.applications + excluded.applications;
		DELETE FROM insights_first_decisions WHERE application_id IN (SELECT id FROM old_rows);
	END IF;
	RETURN NULL;
END $$;
--> statement-breakpoint
-- Audit rows: a new decision row keeps the earlier of it and the first decision known; a changed or
-- removed row (never done by the portal: the log is append-only) recomputes its applications' first.
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
		WHERE e.field = 'review' AND e.to_state <> 'pending'
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
	WHERE e.application_id = ANY (touched) AND e.field = 'review' AND e.to_state <> 'pending'
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
DROP TRIGGER IF EXISTS insights_applications_inserted ON applications;--> statement-breakpoint
CREATE TRIGGER insights_applications_inserted AFTER INSERT ON applications
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION insights_applications_changed();--> statement-breakpoint
DROP TRIGGER IF EXISTS insights_applications_updated ON applications;--> statement-breakpoint
CREATE TRIGGER insights_applications_updated AFTER UPDATE ON applications
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION insights_applications_changed();--> statement-breakpoint
DROP TRIGGER IF EXISTS insights_applications_deleted ON applications;--> statement-breakpoint
CREATE TRIGGER insights_applications_deleted AFTER DELETE ON applications
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION insights_applications_changed();--> statement-breakpoint
DROP TRIGGER IF EXISTS insights_applications_truncated ON applications;--> statement-breakpoint
CREATE TRIGGER insights_applications_truncated AFTER TRUNCATE ON applications
FOR EACH STATEMENT EXECUTE FUNCTION insights_truncated();--> statement-breakpoint
DROP TRIGGER IF EXISTS insights_events_inserted ON application_events;--> statement-breakpoint
CREATE TRIGGER insights_events_inserted AFTER INSERT ON application_events
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION insights_events_changed();--> statement-breakpoint
DROP TRIGGER IF EXISTS insights_events_updated ON application_events;--> statement-breakpoint
CREATE TRIGGER insights_events_updated AFTER UPDATE ON application_events
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION insights_events_changed();--> statement-breakpoint
DROP TRIGGER IF EXISTS insights_events_deleted ON application_events;--> statement-breakpoint
CREATE TRIGGER insights_events_deleted AFTER DELETE ON application_events
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION insights_events_changed();--> statement-breakpoint
DROP TRIGGER IF EXISTS insights_events_truncated ON application_events;--> statement-breakpoint
CREATE TRIGGER insights_events_truncated AFTER TRUNCATE ON application_events
FOR EACH STATEMENT EXECUTE FUNCTION insights_truncated();--> statement-breakpoint
DROP TRIGGER IF EXISTS insights_check_ins_inserted ON check_ins;--> statement-breakpoint
CREATE TRIGGER insights_check_ins_inserted AFTER INSERT ON check_ins
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION insights_check_ins_changed();--> statement-breakpoint
DROP TRIGGER IF EXISTS insights_check_ins_updated ON check_ins;--> statement-breakpoint
CREATE TRIGGER insights_check_ins_updated AFTER UPDATE ON check_ins
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION insights_check_ins_changed();--> statement-breakpoint
DROP TRIGGER IF EXISTS insights_check_ins_deleted ON check_ins;--> statement-breakpoint
CREATE TRIGGER insights_check_ins_deleted AFTER DELETE ON check_ins
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION insights_check_ins_changed();--> statement-breakpoint
DROP TRIGGER IF EXISTS insights_check_ins_truncated ON check_ins;--> statement-breakpoint
CREATE TRIGGER insights_check_ins_truncated AFTER TRUNCATE ON check_ins
FOR EACH STATEMENT EXECUTE FUNCTION insights_truncated();--> statement-breakpoint
-- The charts no longer read applications themselves: 0007's two indexes for them would only slow its writes.
DROP INDEX IF EXISTS "applications_insights_idx";--> statement-breakpoint
DROP INDEX IF EXISTS "applications_funnel_idx";--> statement-breakpoint
-- Backfill from what is already there: CREATE TRIGGER has locked out writers until the migration's
-- transaction commits, so no write is missed or counted twice.
DELETE FROM insights_applications;--> statement-breakpoint
INSERT INTO insights_applications (week, review, allowlist, distribution, applications)
SELECT insights_week(created_at), review, allowlist, distribution, count(*) FROM applications GROUP BY 1, 2, 3, 4;--> statement-breakpoint
DELETE FROM insights_first_decisions;--> statement-breakpoint
INSERT INTO insights_first_decisions (application_id, week, decided_at, seconds)
SELECT e.application_id, insights_week(a.created_at), min(e.created_at), extract(epoch from min(e.created_at) - a.created_at)
FROM application_events e JOIN applications a ON a.id = e.application_id
WHERE e.field = 'review' AND e.to_state <> 'pending'
GROUP BY e.application_id, a.created_at;--> statement-breakpoint
DELETE FROM insights_check_in_days;--> statement-breakpoint
INSERT INTO insights_check_in_days (day, shard, check_ins, members)
SELECT insights_day(created_at), insights_shard(member_address), count(*), count(DISTINCT member_address)
FROM check_ins GROUP BY 1, 2;
