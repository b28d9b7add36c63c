-- The applicant's own application (issue 58, docs/data.md): review state `withdrawn` (terminal, by the
-- applicant), drafts (one per member and programme), and one live application per programme and member
-- counted without withdrawn ones. The index names the live states: the migrations run in one
-- transaction, and Postgres refuses a use of an enum value in the transaction that added it.
ALTER TYPE "public"."review_state" ADD VALUE 'withdrawn';--> statement-breakpoint
CREATE TABLE "application_drafts" (
	"member_address" text NOT NULL,
	"program_id" integer NOT NULL,
	"fields" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "application_drafts_member_address_program_id_pk" PRIMARY KEY("member_address","program_id"),
	CONSTRAINT "application_drafts_fields_object" CHECK (jsonb_typeof("application_drafts"."fields") = 'object')
);
--> statement-breakpoint
DROP INDEX "applications_one_live_per_program";--> statement-breakpoint
ALTER TABLE "application_drafts" ADD CONSTRAINT "application_drafts_member_address_members_address_fk" FOREIGN KEY ("member_address") REFERENCES "public"."members"("address") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "application_drafts" ADD CONSTRAINT "application_drafts_program_id_programs_id_fk" FOREIGN KEY ("program_id") REFERENCES "public"."programs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "applications_one_live_per_program" ON "applications" USING btree ("program_id","applicant_address") WHERE "applications"."review" in ('pending', 'needs_info', 'approved');--> statement-breakpoint
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
