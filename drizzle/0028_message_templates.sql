CREATE TABLE "applicant_messages" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "applicant_messages_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"subject" text NOT NULL,
	"body" text NOT NULL,
	"sent_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"recipients" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "applicant_messages_subject_length" CHECK (char_length("applicant_messages"."subject") between 1 and 200),
	CONSTRAINT "applicant_messages_body_length" CHECK (char_length("applicant_messages"."body") between 1 and 5000)
);
--> statement-breakpoint
CREATE TABLE "message_templates" (
	"event" text NOT NULL,
	"locale" text NOT NULL,
	"subject" text NOT NULL,
	"body" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" text,
	CONSTRAINT "message_templates_event_locale_pk" PRIMARY KEY("event","locale"),
	CONSTRAINT "message_templates_event_known" CHECK ("message_templates"."event" in ('application.submitted', 'application.resubmitted', 'review.needs_info', 'review.approved', 'review.rejected', 'application.withdrawn', 'allowlist.added', 'distribution.sent', 'decisions.released')),
	CONSTRAINT "message_templates_locale_known" CHECK ("message_templates"."locale" IN ('en', 'es', 'pt-BR', 'zh-Hans', 'ar')),
	CONSTRAINT "message_templates_subject_length" CHECK (char_length("message_templates"."subject") between 1 and 200),
	CONSTRAINT "message_templates_body_length" CHECK (char_length("message_templates"."body") between 1 and 5000)
);
--> statement-breakpoint
ALTER TABLE "notifications" DROP CONSTRAINT "notifications_kind_check";--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "markup" jsonb;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "message_id" bigint;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_message_id_applicant_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."applicant_messages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "notifications_application_message_idx" ON "notifications" USING btree ("application_id","id") WHERE "notifications"."message_id" is not null;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_kind_check" CHECK ("notifications"."kind" in ('application.submitted', 'application.resubmitted', 'application.transitioned', 'admin.message'));