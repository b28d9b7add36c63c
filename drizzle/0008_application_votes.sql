-- Hand-written: reviewer votes (docs/decisions/0028-reviewer-votes.md). Append-only: a reviewer's newest
-- row (created_at, then id) is their current vote; voting again adds a row.
CREATE TABLE "application_votes" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "application_votes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"application_id" uuid NOT NULL,
	"reviewer_address" text NOT NULL,
	"vote" text NOT NULL,
	"scores" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"comment" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "application_votes_vote_choice" CHECK ("application_votes"."vote" in ('approve', 'reject', 'abstain')),
	CONSTRAINT "application_votes_scores_object" CHECK (jsonb_typeof("application_votes"."scores") = 'object'),
	CONSTRAINT "application_votes_comment_length" CHECK (char_length("application_votes"."comment") <= 2000)
);
--> statement-breakpoint
ALTER TABLE "application_votes" ADD CONSTRAINT "application_votes_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- Each application's current votes: the newest row per reviewer, read in index order (DISTINCT ON).
CREATE INDEX "application_votes_current_idx" ON "application_votes" USING btree ("application_id","reviewer_address","created_at" DESC,"id" DESC);--> statement-breakpoint
-- A reviewer's own votes, newest first (the "voted" tab of /review); the queue's "not voted yet" probes the index above.
CREATE INDEX "application_votes_reviewer_idx" ON "application_votes" USING btree ("reviewer_address","created_at" DESC,"id" DESC);--> statement-breakpoint
-- A vote's score: the mean of its criterion scores (numbers only, so a hand-seeded odd value is ignored,
-- not an error); null for a vote without scores (an abstention).
CREATE FUNCTION vote_mean_score(scores jsonb) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
	SELECT avg((s.value #>> '{}')::numeric)
	FROM jsonb_each(scores) AS s
	WHERE jsonb_typeof(s.value) = 'number'
$$;
--> statement-breakpoint
-- The current votes of one application by everyone but p_except, as counts and a score sum. VOLATILE on
-- purpose: it is neither inlined nor run on the calling statement's snapshot, so the vote statement that
-- calls it after locking the application row counts every vote committed meanwhile (the webhook's counts).
CREATE FUNCTION application_vote_counts_except(p_application uuid, p_except text) RETURNS jsonb
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
