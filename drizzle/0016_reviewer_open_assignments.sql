-- Hand-written below the table: each reviewer's count of open assignments (an assignment on a pending
-- application without their vote), kept by the database (docs/decisions/0042-open-assignment-count.md),
-- so that choosing the least-loaded reviewers on a submission reads one row per reviewer instead of
-- counting every pending application's assignments.
CREATE TABLE "reviewer_open_assignments" (
	"reviewer_address" text PRIMARY KEY NOT NULL,
	"open" integer DEFAULT 0 NOT NULL
);
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
-- Every reviewer counted from the tables (after a TRUNCATE, which fires no row triggers, and once here).
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
CREATE TRIGGER review_assignments_open_ins AFTER INSERT ON review_assignments
	REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION review_assignments_changed();
--> statement-breakpoint
CREATE TRIGGER review_assignments_open_upd AFTER UPDATE ON review_assignments
	REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION review_assignments_changed();
--> statement-breakpoint
CREATE TRIGGER review_assignments_open_del AFTER DELETE ON review_assignments
	REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION review_assignments_changed();
--> statement-breakpoint
CREATE TRIGGER application_votes_open_ins AFTER INSERT ON application_votes
	REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION application_votes_assignment_changed();
--> statement-breakpoint
CREATE TRIGGER application_votes_open_del AFTER DELETE ON application_votes
	REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION application_votes_assignment_changed();
--> statement-breakpoint
CREATE TRIGGER applications_open_upd AFTER UPDATE ON applications
	REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION applications_review_assignment_changed();
--> statement-breakpoint
CREATE TRIGGER review_assignments_open_truncate AFTER TRUNCATE ON review_assignments
	FOR EACH STATEMENT EXECUTE FUNCTION reviewer_open_truncated();
--> statement-breakpoint
CREATE TRIGGER application_votes_open_truncate AFTER TRUNCATE ON application_votes
	FOR EACH STATEMENT EXECUTE FUNCTION reviewer_open_truncated();
--> statement-breakpoint
CREATE TRIGGER applications_open_truncate AFTER TRUNCATE ON applications
	FOR EACH STATEMENT EXECUTE FUNCTION reviewer_open_truncated();
--> statement-breakpoint
SELECT reviewer_open_recount_all();
