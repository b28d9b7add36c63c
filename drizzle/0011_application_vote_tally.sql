-- Hand-written: each application's tally of its current votes, kept by the database
-- (docs/decisions/0033-vote-tally.md). A reviewer's current vote is their newest row (created_at, then
-- id); the tally counts those by choice and averages the non-abstaining ones' own mean scores
-- (vote_mean_score, drizzle/0008), exactly what the review table used to compute where it read it.
-- A statement-level trigger on application_votes recounts the applications a statement touched, so a
-- vote written by SQL counts at once, as one cast by the portal does.
ALTER TABLE "applications" ADD COLUMN "votes_approve" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "votes_reject" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "votes_abstain" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "votes_current" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "votes_scored" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "votes_mean_score" numeric;--> statement-breakpoint
-- sort=score: highest mean first (no score counts as 0), then longest waiting; the review table walks
-- these in either direction with a row comparison on (-score, created_at, id), as it walks the
-- (state, created_at, id) indexes of 0004 for its other orders.
CREATE INDEX "applications_score_queue_idx" ON "applications" USING btree ((- coalesce("votes_mean_score", 0)),"created_at","id");--> statement-breakpoint
CREATE INDEX "applications_review_score_queue_idx" ON "applications" USING btree ("review",(- coalesce("votes_mean_score", 0)),"created_at","id");--> statement-breakpoint
-- votes=ready|needed: reviewers with a current vote, so each tab's count capped at COUNT_CAP + 1 is a
-- short index-only range instead of a read of the rows themselves.
CREATE INDEX "applications_votes_idx" ON "applications" USING btree ("votes_current");--> statement-breakpoint
CREATE INDEX "applications_review_votes_idx" ON "applications" USING btree ("review","votes_current");--> statement-breakpoint
-- Recounts the given applications from application_votes. First it locks their rows in id order (the
-- lock castVote and a transition take, so it waits for a concurrent vote or decision on them to
-- commit); then, in a statement with a newer snapshot (READ COMMITTED), it counts every current vote
-- committed by then plus this transaction's own. Whichever of two concurrent votes locks last counts
-- both, so the tally ends right whatever the order. Rows already right are not written again.
CREATE OR REPLACE FUNCTION application_votes_recount(touched uuid[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM 1 FROM applications a JOIN (SELECT DISTINCT unnest(touched)) AS t(id) ON a.id = t.id
	ORDER BY a.id FOR NO KEY UPDATE OF a;
	WITH ids AS (SELECT DISTINCT unnest(touched) AS id),
	current_votes AS (
		SELECT DISTINCT ON (v.application_id, v.reviewer_address) v.application_id, v.vote, v.scores
		FROM application_votes AS v JOIN ids ON ids.id = v.application_id
		ORDER BY v.application_id, v.reviewer_address, v.created_at DESC, v.id DESC
	),
	tally AS (
		SELECT ids.id,
			count(c.vote) FILTER (WHERE c.vote = 'approve')::int AS approve,
			count(c.vote) FILTER (WHERE c.vote = 'reject')::int AS reject,
			count(c.vote) FILTER (WHERE c.vote = 'abstain')::int AS abstain,
			count(c.vote)::int AS current,
			count(vote_mean_score(c.scores)) FILTER (WHERE c.vote <> 'abstain')::int AS scored,
			avg(vote_mean_score(c.scores)) FILTER (WHERE c.vote <> 'abstain') AS mean_score
		FROM ids LEFT JOIN current_votes AS c ON c.application_id = ids.id
		GROUP BY ids.id
	)
	UPDATE applications AS a
	SET votes_approve = t.approve, votes_reject = t.reject, votes_abstain = t.abstain,
		votes_current = t.current, votes_scored = t.scored, votes_mean_score = t.mean_score
	FROM tally AS t
	WHERE a.id = t.id
		AND (a.votes_approve, a.votes_reject, a.votes_abstain, a.votes_current, a.votes_scored, a.votes_mean_score)
			IS DISTINCT FROM (t.approve, t.reject, t.abstain, t.current, t.scored, t.mean_score);
END $$;
--> statement-breakpoint
-- The portal only ever inserts votes (the table is append-only, decision 0028); an UPDATE or DELETE
-- made by hand recounts what it touched all the same, and TRUNCATE leaves every tally empty.
CREATE OR REPLACE FUNCTION application_votes_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
	touched uuid[];
BEGIN
	IF TG_OP = 'INSERT' THEN
		SELECT array_agg(DISTINCT application_id) INTO touched FROM new_rows;
	ELSIF TG_OP = 'UPDATE' THEN
		SELECT array_agg(id) INTO touched
		FROM (SELECT application_id FROM old_rows UNION SELECT application_id FROM new_rows) AS t(id);
	ELSE
		SELECT array_agg(DISTINCT application_id) INTO touched FROM old_rows;
	END IF;
	IF touched IS NOT NULL THEN
		PERFORM application_votes_recount(touched);
	END IF;
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION application_votes_truncated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	UPDATE applications
	SET votes_approve = 0, votes_reject = 0, votes_abstain = 0, votes_current = 0, votes_scored = 0,
		votes_mean_score = NULL
	WHERE votes_current <> 0 OR votes_scored <> 0 OR votes_mean_score IS NOT NULL;
	RETURN NULL;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS application_votes_inserted ON application_votes;--> statement-breakpoint
CREATE TRIGGER application_votes_inserted AFTER INSERT ON application_votes
REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION application_votes_changed();--> statement-breakpoint
DROP TRIGGER IF EXISTS application_votes_updated ON application_votes;--> statement-breakpoint
CREATE TRIGGER application_votes_updated AFTER UPDATE ON application_votes
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION application_votes_changed();--> statement-breakpoint
DROP TRIGGER IF EXISTS application_votes_deleted ON application_votes;--> statement-breakpoint
CREATE TRIGGER application_votes_deleted AFTER DELETE ON application_votes
REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION application_votes_changed();--> statement-breakpoint
DROP TRIGGER IF EXISTS application_votes_truncated ON application_votes;--> statement-breakpoint
CREATE TRIGGER application_votes_truncated AFTER TRUNCATE ON application_votes
FOR EACH STATEMENT EXECUTE FUNCTION application_votes_truncated();--> statement-breakpoint
-- Backfill from the votes already there: CREATE TRIGGER has locked out writers of application_votes
-- until the migration's transaction commits, so no vote is missed or counted twice.
SELECT application_votes_recount(array_agg(DISTINCT application_id)) FROM application_votes HAVING count(*) > 0;
