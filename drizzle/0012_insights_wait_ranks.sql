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
-- min_seconds and max_seconds answer a rank at either end of a bucket, or in a bucket of equal values,
-- without reading it. Null only in a row about to be removed (no decisions left).
CREATE TABLE IF NOT EXISTS "insights_wait_buckets" (
	"week" timestamp with time zone NOT NULL,
	"bucket" smallint NOT NULL,
	"decided" integer NOT NULL,
	"min_seconds" double precision,
	"max_seconds" double precision,
	CONSTRAINT "insights_wait_buckets_week_bucket_pk" PRIMARY KEY("week","bucket")
);
--> statement-breakpoint
-- One bucket's values in order: the rank within a bucket is an offset into this range.
CREATE INDEX IF NOT EXISTS "insights_first_decisions_bucket_idx" ON "insights_first_decisions" USING btree ("week",insights_wait_bucket("seconds"),"seconds");--> statement-breakpoint
-- Only the percentiles read by (week, seconds), and they now read by bucket.
DROP INDEX IF EXISTS "insights_first_decisions_week_idx";--> statement-breakpoint
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
DROP TRIGGER IF EXISTS insights_wait_buckets_inserted ON insights_first_decisions;--> statement-breakpoint
CREATE TRIGGER insights_wait_buckets_inserted AFTER INSERT ON insights_first_decisions
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION insights_wait_buckets_changed();--> statement-breakpoint
DROP TRIGGER IF EXISTS insights_wait_buckets_updated ON insights_first_decisions;--> statement-breakpoint
CREATE TRIGGER insights_wait_buckets_updated AFTER UPDATE ON insights_first_decisions
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION insights_wait_buckets_changed();--> statement-breakpoint
DROP TRIGGER IF EXISTS insights_wait_buckets_deleted ON insights_first_decisions;--> statement-breakpoint
CREATE TRIGGER insights_wait_buckets_deleted AFTER DELETE ON insights_first_decisions
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION insights_wait_buckets_changed();--> statement-breakpoint
DROP TRIGGER IF EXISTS insights_wait_buckets_truncated ON insights_first_decisions;--> statement-breakpoint
CREATE TRIGGER insights_wait_buckets_truncated AFTER TRUNCATE ON insights_first_decisions
FOR EACH STATEMENT EXECUTE FUNCTION insights_wait_buckets_truncated();--> statement-breakpoint
-- Backfill from the first decisions already there: CREATE TRIGGER has locked out their writers until
-- the migration's transaction commits, so no decision is missed or counted twice.
DELETE FROM insights_wait_buckets;--> statement-breakpoint
INSERT INTO insights_wait_buckets (week, bucket, decided, min_seconds, max_seconds)
SELECT week, insights_wait_bucket(seconds), count(*), min(seconds), max(seconds)
FROM insights_first_decisions GROUP BY 1, 2;
