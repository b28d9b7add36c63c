-- A new application is counted in insights_applications when its transaction commits, in one of 16
-- shards by applicant (insights_shard, as insights_check_in_days): counted by the insert itself, in one
-- row a week, every submission waited on that row's lock until the one before it committed
-- (bench/launch.js: 13 of 16 inserts waiting on a transaction id at 66 members a second).
-- The table is recounted from applications; the ALTER TABLE keeps writers out until this commits.
ALTER TABLE "insights_applications" DROP CONSTRAINT "insights_applications_week_review_allowlist_distribution_pk";--> statement-breakpoint
ALTER TABLE "insights_applications" ADD COLUMN "shard" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "insights_applications" ALTER COLUMN "shard" DROP DEFAULT;--> statement-breakpoint
DELETE FROM "insights_applications";--> statement-breakpoint
INSERT INTO "insights_applications" (week, shard, review, allowlist, distribution, applications)
SELECT insights_week(created_at), insights_shard(applicant_address), review, allowlist, distribution, count(*)
FROM applications GROUP BY 1, 2, 3, 4, 5;--> statement-breakpoint
ALTER TABLE "insights_applications" ADD CONSTRAINT "insights_applications_week_shard_review_allowlist_distribution_pk" PRIMARY KEY("week","shard","review","allowlist","distribution");--> statement-breakpoint
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
DROP TRIGGER IF EXISTS insights_applications_inserted ON applications;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER insights_applications_inserted AFTER INSERT ON applications
DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION insights_application_counted();
