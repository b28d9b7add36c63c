CREATE TYPE "public"."allowlist_state" AS ENUM('pending', 'added', 'failed');--> statement-breakpoint
CREATE TYPE "public"."application_field" AS ENUM('review', 'allowlist', 'distribution');--> statement-breakpoint
CREATE TYPE "public"."distribution_state" AS ENUM('pending', 'sent', 'failed');--> statement-breakpoint
CREATE TYPE "public"."review_state" AS ENUM('pending', 'needs_info', 'approved', 'rejected');--> statement-breakpoint
CREATE TABLE "application_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "application_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"application_id" uuid NOT NULL,
	"executor_address" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"field" "application_field" NOT NULL,
	"from_state" text NOT NULL,
	"to_state" text NOT NULL,
	"reason" text,
	"tx_hash" text,
	CONSTRAINT "application_events_tx_hash_format" CHECK ("application_events"."tx_hash" ~ '^0x[0-9a-f]{64}$'),
	CONSTRAINT "application_events_reason_length" CHECK (char_length("application_events"."reason") <= 500)
);
--> statement-breakpoint
CREATE TABLE "applications" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"applicant_address" text NOT NULL,
	"display_name" text NOT NULL,
	"motivation" text NOT NULL,
	"contact" text DEFAULT '' NOT NULL,
	"review" "review_state" DEFAULT 'pending' NOT NULL,
	"allowlist" "allowlist_state" DEFAULT 'pending' NOT NULL,
	"distribution" "distribution_state" DEFAULT 'pending' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "applications_display_name_length" CHECK (char_length("applications"."display_name") between 1 and 80),
	CONSTRAINT "applications_motivation_length" CHECK (char_length("applications"."motivation") between 1 and 2000),
	CONSTRAINT "applications_contact_length" CHECK (char_length("applications"."contact") <= 200)
);
--> statement-breakpoint
CREATE TABLE "check_ins" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"member_address" text NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "check_ins_note_length" CHECK (char_length("check_ins"."note") <= 280)
);
--> statement-breakpoint
CREATE TABLE "members" (
	"address" text PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_signed_in_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "members_address_lowercase" CHECK ("members"."address" ~ '^0x[0-9a-f]{40}$')
);
--> statement-breakpoint
CREATE TABLE "rate_limit_counters" (
	"subject" text NOT NULL,
	"action" text NOT NULL,
	"window_started_at" timestamp with time zone NOT NULL,
	"window_ends_at" timestamp with time zone NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "rate_limit_counters_subject_action_pk" PRIMARY KEY("subject","action")
);
--> statement-breakpoint
ALTER TABLE "application_events" ADD CONSTRAINT "application_events_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "applications" ADD CONSTRAINT "applications_applicant_address_members_address_fk" FOREIGN KEY ("applicant_address") REFERENCES "public"."members"("address") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "check_ins" ADD CONSTRAINT "check_ins_member_address_members_address_fk" FOREIGN KEY ("member_address") REFERENCES "public"."members"("address") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "application_events_application_idx" ON "application_events" USING btree ("application_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "applications_one_active_per_member" ON "applications" USING btree ("applicant_address") WHERE "applications"."review" <> 'rejected';--> statement-breakpoint
CREATE INDEX "applications_created_at_idx" ON "applications" USING btree ("created_at" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE INDEX "applications_review_idx" ON "applications" USING btree ("review","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "applications_allowlist_idx" ON "applications" USING btree ("allowlist","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "applications_distribution_idx" ON "applications" USING btree ("distribution","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "applications_applicant_idx" ON "applications" USING btree ("applicant_address");--> statement-breakpoint
CREATE INDEX "check_ins_member_created_idx" ON "check_ins" USING btree ("member_address","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "rate_limit_counters_window_ends_idx" ON "rate_limit_counters" USING btree ("window_ends_at");