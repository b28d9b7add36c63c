CREATE TABLE "insights_reviewer_votes" (
	"reviewer_address" text NOT NULL,
	"vote" text NOT NULL,
	"votes" integer NOT NULL,
	CONSTRAINT "insights_reviewer_votes_reviewer_address_vote_pk" PRIMARY KEY("reviewer_address","vote")
);
--> statement-breakpoint
-- Hand-written below the table: the votes chart of /admin/insights counted each reviewer's current
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
DROP TRIGGER IF EXISTS application_votes_reviewers_ins ON application_votes;--> statement-breakpoint
CREATE TRIGGER application_votes_reviewers_ins AFTER INSERT ON application_votes
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION insights_reviewer_votes_changed();--> statement-breakpoint
DROP TRIGGER IF EXISTS application_votes_reviewers_upd ON application_votes;--> statement-breakpoint
CREATE TRIGGER application_votes_reviewers_upd AFTER UPDATE ON application_votes
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION insights_reviewer_votes_changed();--> statement-breakpoint
DROP TRIGGER IF EXISTS application_votes_reviewers_del ON application_votes;--> statement-breakpoint
CREATE TRIGGER application_votes_reviewers_del AFTER DELETE ON application_votes
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION insights_reviewer_votes_changed();--> statement-breakpoint
DROP TRIGGER IF EXISTS application_votes_reviewers_truncate ON application_votes;--> statement-breakpoint
CREATE TRIGGER application_votes_reviewers_truncate AFTER TRUNCATE ON application_votes
FOR EACH STATEMENT EXECUTE FUNCTION insights_reviewer_votes_truncated();--> statement-breakpoint
-- Backfill from the votes already there (CREATE TRIGGER has locked out writers of application_votes
-- until the migration's transaction commits).
SELECT insights_reviewer_votes_recount(array_agg(DISTINCT reviewer_address)) FROM application_votes HAVING count(*) > 0;
