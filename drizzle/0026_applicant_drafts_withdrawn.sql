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
CREATE UNIQUE INDEX "applications_one_live_per_program" ON "applications" USING btree ("program_id","applicant_address") WHERE "applications"."review" in ('pending', 'needs_info', 'approved');