CREATE TABLE "application_notes" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "application_notes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"application_id" uuid NOT NULL,
	"author_address" text NOT NULL,
	"body" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "application_notes_body_length" CHECK (char_length("application_notes"."body") between 1 and 2000)
);
--> statement-breakpoint
CREATE TABLE "application_revisions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "application_revisions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"application_id" uuid NOT NULL,
	"display_name" text NOT NULL,
	"motivation" text NOT NULL,
	"contact" text NOT NULL,
	"submitted_at" timestamp with time zone NOT NULL,
	"replaced_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "applications_created_at_idx";--> statement-breakpoint
DROP INDEX "applications_review_idx";--> statement-breakpoint
DROP INDEX "applications_allowlist_idx";--> statement-breakpoint
DROP INDEX "applications_distribution_idx";--> statement-breakpoint
ALTER TABLE "application_events" ADD COLUMN "tx_verified" boolean;--> statement-breakpoint
ALTER TABLE "application_notes" ADD CONSTRAINT "application_notes_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "application_revisions" ADD CONSTRAINT "application_revisions_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "application_notes_application_idx" ON "application_notes" USING btree ("application_id","id");--> statement-breakpoint
CREATE INDEX "application_revisions_application_idx" ON "application_revisions" USING btree ("application_id","id");--> statement-breakpoint
CREATE INDEX "applications_queue_idx" ON "applications" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "applications_review_queue_idx" ON "applications" USING btree ("review","created_at","id");--> statement-breakpoint
CREATE INDEX "applications_allowlist_queue_idx" ON "applications" USING btree ("allowlist","created_at","id");--> statement-breakpoint
CREATE INDEX "applications_distribution_queue_idx" ON "applications" USING btree ("distribution","created_at","id");--> statement-breakpoint
CREATE INDEX "applications_address_trgm_idx" ON "applications" USING gin ("applicant_address" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "applications_display_name_trgm_idx" ON "applications" USING gin ("display_name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "applications_contact_trgm_idx" ON "applications" USING gin ("contact" gin_trgm_ops);