-- The reviews' database functions and triggers: vote scores and counts, the tally of current votes on
-- `applications` (docs/decisions/0033-vote-tally.md), and each reviewer's open assignments
-- (reviewer_open_assignments, docs/decisions/0040-review-assignment.md, 0042-open-assignment-count.md).
--
-- The current definition of each function and trigger of this domain, re-applied after the migrations
-- whenever this file changes (src/lib/server/db/domain-sql.js). Change one here, not in a migration;
-- each statement must stay idempotent (CREATE OR REPLACE) and end at a `--> statement-breakpoint` line.
-- A new table or column is a migration (docs/data.md, "Functions and triggers").

-- A vote's score: the mean of its criterion scores (numbers only, so a hand-seeded odd value is ignored,
-- not an error); null for a vote without scores (an abstention).
CREATE OR REPLACE FUNCTION vote_mean_score(scores jsonb) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
	SELECT avg((s.value #>> '{}')::numeric)
	FROM jsonb_each(scores) AS s
	WHERE jsonb_typeof(s.value) = 'number'
$$;
--> statement-breakpoint
-- The current votes of one application by everyone but p_except, as counts and a score sum. VOLATILE on
-- purpose: it is neither inlined nor run on the calling statement's snapshot, so the vote statement that
-- calls it after locking the application row counts every vote committed meanwhile (the webhook's counts).
CREATE OR REPLACE FUNCTION application_vote_counts_except(p_application uuid, p_except text) RETURNS jsonb
LANGUAGE sql VOLATILE AS $$
	SELECT jsonb_build_object(
		'approve', count(*) FILTER (WHERE c.vote = 'approve'),
		'reject', count(*) FILTER (WHERE c.vote = 'reject'),
		'abstain', count(*) FILTER (WHERE c.vote = 'abstain'),
		'scored', count(vote_mean_score(c.scores)) FILTER (WHERE c.vote <> 'abstain'),
		'scoreSum', coalesce(sum(vote_mean_score(c.scores)) FILTER (WHERE c.vote <> 'abstain'), 0)
	)
	FROM (
		SELECT DISTINCT ON (v.reviewer_address) v.vote, v.scores
		FROM application_votes AS v
		WHERE v.application_id = p_application AND v.reviewer_address <> p_except
		ORDER BY v.reviewer_address, v.created_at DESC, v.id DESC
	) AS c
$$;
--> statement-breakpoint
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
SELECT create_statement_triggers('application_votes', 'application_votes', 'application_votes_changed', 'application_votes_truncated');
--> statement-breakpoint
-- Counting: every change that opens or closes an assignment adds its own +1 or -1 per reviewer. Changes
-- of who reviews what take the assignment lock (440040, decision 0040) before they write; a vote and a
-- review move take it in their trigger, and then decide, in a statement with a newer snapshot (READ
-- COMMITTED), what their own change did to the state as it is now. Each change is so counted once, by
-- whichever of two concurrent changes comes second seeing the first (decision 0042 walks the orders).
CREATE OR REPLACE FUNCTION reviewer_open_add(reviewers text[], deltas integer[]) RETURNS void
LANGUAGE sql AS $$
	INSERT INTO reviewer_open_assignments AS o (reviewer_address, open)
	SELECT r, sum(d)::int FROM unnest(reviewers, deltas) AS t(r, d) GROUP BY r HAVING sum(d) <> 0
	ON CONFLICT (reviewer_address) DO UPDATE SET open = o.open + excluded.open;
$$;
--> statement-breakpoint
-- Every reviewer counted from the tables (after a TRUNCATE, which fires no row triggers).
CREATE OR REPLACE FUNCTION reviewer_open_recount_all() RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_advisory_xact_lock(440040);
	DELETE FROM reviewer_open_assignments;
	INSERT INTO reviewer_open_assignments (reviewer_address, open)
	SELECT a.reviewer_address, count(*)::int FROM review_assignments a JOIN applications p ON p.id = a.application_id
	WHERE p.review = 'pending' AND NOT EXISTS (SELECT 1 FROM application_votes v
		WHERE v.application_id = a.application_id AND v.reviewer_address = a.reviewer_address)
	GROUP BY a.reviewer_address;
END $$;
--> statement-breakpoint
-- An assignment added or removed counts if it is open: its application pending, no vote of its reviewer.
CREATE OR REPLACE FUNCTION review_assignments_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_advisory_xact_lock(440040);
	IF TG_OP IN ('UPDATE', 'DELETE') THEN
		PERFORM reviewer_open_add(array_agg(o.reviewer_address), array_agg(-1)) FROM old_rows o
		JOIN applications p ON p.id = o.application_id
		WHERE p.review = 'pending' AND NOT EXISTS (SELECT 1 FROM application_votes v
			WHERE v.application_id = o.application_id AND v.reviewer_address = o.reviewer_address);
	END IF;
	IF TG_OP IN ('UPDATE', 'INSERT') THEN
		PERFORM reviewer_open_add(array_agg(n.reviewer_address), array_agg(1)) FROM new_rows n
		JOIN applications p ON p.id = n.application_id
		WHERE p.review = 'pending' AND NOT EXISTS (SELECT 1 FROM application_votes v
			WHERE v.application_id = n.application_id AND v.reviewer_address = n.reviewer_address);
	END IF;
	RETURN NULL;
END $$;
--> statement-breakpoint
-- A reviewer's first vote on an application closes their assignment there (votes are append-only: a later
-- vote changes nothing); a deletion that leaves them no vote opens it again.
CREATE OR REPLACE FUNCTION application_votes_assignment_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_advisory_xact_lock(440040);
	IF TG_OP = 'INSERT' THEN
		PERFORM reviewer_open_add(array_agg(c.reviewer_address), array_agg(-1))
		FROM (SELECT application_id, reviewer_address, count(*) AS n FROM new_rows GROUP BY 1, 2) AS c
		JOIN applications p ON p.id = c.application_id
		WHERE p.review = 'pending'
			AND EXISTS (SELECT 1 FROM review_assignments a
				WHERE a.application_id = c.application_id AND a.reviewer_address = c.reviewer_address)
			AND (SELECT count(*) FROM application_votes v
				WHERE v.application_id = c.application_id AND v.reviewer_address = c.reviewer_address) = c.n;
	ELSE
		PERFORM reviewer_open_add(array_agg(c.reviewer_address), array_agg(1))
		FROM (SELECT DISTINCT application_id, reviewer_address FROM old_rows) AS c
		JOIN applications p ON p.id = c.application_id
		WHERE p.review = 'pending'
			AND EXISTS (SELECT 1 FROM review_assignments a
				WHERE a.application_id = c.application_id AND a.reviewer_address = c.reviewer_address)
			AND NOT EXISTS (SELECT 1 FROM application_votes v
				WHERE v.application_id = c.application_id AND v.reviewer_address = c.reviewer_address);
	END IF;
	RETURN NULL;
END $$;
--> statement-breakpoint
-- An application entering or leaving `pending` opens or closes its assignments without a vote. Transition
-- tables rule out `UPDATE OF review`: the trigger fires on every UPDATE statement of applications and
-- looks only at rows whose review entered or left pending (none for a tally or an on-chain step).
CREATE OR REPLACE FUNCTION applications_review_assignment_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
	moved uuid[];
	entered uuid[];
BEGIN
	SELECT array_agg(n.id), array_agg(n.id) FILTER (WHERE n.review = 'pending') INTO moved, entered
	FROM old_rows o JOIN new_rows n ON n.id = o.id
	WHERE o.review IS DISTINCT FROM n.review AND 'pending' IN (o.review, n.review);
	IF moved IS NULL THEN
		RETURN NULL;
	END IF;
	PERFORM pg_advisory_xact_lock(440040);
	PERFORM reviewer_open_add(
		array_agg(a.reviewer_address),
		array_agg(CASE WHEN a.application_id = ANY (coalesce(entered, '{}')) THEN 1 ELSE -1 END))
	FROM review_assignments a
	WHERE a.application_id = ANY (moved) AND NOT EXISTS (SELECT 1 FROM application_votes v
		WHERE v.application_id = a.application_id AND v.reviewer_address = a.reviewer_address);
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION reviewer_open_truncated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM reviewer_open_recount_all();
	RETURN NULL;
END $$;
--> statement-breakpoint
SELECT create_statement_triggers('review_assignments', 'review_assignments_open', 'review_assignments_changed',
	'reviewer_open_truncated', '{ins,upd,del,truncate}');
--> statement-breakpoint
CREATE OR REPLACE TRIGGER application_votes_open_ins AFTER INSERT ON application_votes
	REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION application_votes_assignment_changed();
--> statement-breakpoint
CREATE OR REPLACE TRIGGER application_votes_open_del AFTER DELETE ON application_votes
	REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION application_votes_assignment_changed();
--> statement-breakpoint
CREATE OR REPLACE TRIGGER applications_open_upd AFTER UPDATE ON applications
	REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION applications_review_assignment_changed();
--> statement-breakpoint
CREATE OR REPLACE TRIGGER application_votes_open_truncate AFTER TRUNCATE ON application_votes
	FOR EACH STATEMENT EXECUTE FUNCTION reviewer_open_truncated();
--> statement-breakpoint
CREATE OR REPLACE TRIGGER applications_open_truncate AFTER TRUNCATE ON applications
	FOR EACH STATEMENT EXECUTE FUNCTION reviewer_open_truncated();
