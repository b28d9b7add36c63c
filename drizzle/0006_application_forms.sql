-- Hand-written: application form versions (each community its own questions) and the answers.
CREATE TABLE "application_forms" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "application_forms_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by" text NOT NULL,
	"questions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"rubric" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"eligibility" jsonb
);
--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "form_id" integer;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "answers" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "application_revisions" ADD COLUMN "answers" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "application_revisions" ADD COLUMN "form_id" integer;--> statement-breakpoint
ALTER TABLE "application_revisions" ADD CONSTRAINT "application_revisions_form_id_application_forms_id_fk" FOREIGN KEY ("form_id") REFERENCES "public"."application_forms"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "applications" ADD CONSTRAINT "applications_form_id_application_forms_id_fk" FOREIGN KEY ("form_id") REFERENCES "public"."application_forms"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- The review table's search over text answers: the string values (and multiple-choice elements) of
-- `answers` joined into one text, IMMUTABLE so that a pg_trgm GIN index can hold it (keys and JSON
-- punctuation are left out, so searching a question key does not match every application).
CREATE FUNCTION answers_search_text(a jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
	SELECT coalesce(string_agg(v #>> '{}', E'\n'), '')
	FROM jsonb_path_query(a, 'lax $.*[*] ? (@.type() == "string")') AS v
$$;
--> statement-breakpoint
CREATE INDEX "applications_answers_trgm_idx" ON "applications" USING gin (answers_search_text("answers") gin_trgm_ops);
