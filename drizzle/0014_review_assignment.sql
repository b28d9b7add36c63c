CREATE TABLE "review_assignments" (
	"application_id" uuid NOT NULL,
	"reviewer_address" text NOT NULL,
	"assigned_at" timestamp with time zone DEFAULT now() NOT NULL,
	"assigned_by" text NOT NULL,
	CONSTRAINT "review_assignments_application_id_reviewer_address_pk" PRIMARY KEY("application_id","reviewer_address")
);
--> statement-breakpoint
CREATE TABLE "review_conflicts" (
	"application_id" uuid NOT NULL,
	"reviewer_address" text NOT NULL,
	"reason" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "review_conflicts_application_id_reviewer_address_pk" PRIMARY KEY("application_id","reviewer_address"),
	CONSTRAINT "review_conflicts_reason_length" CHECK (char_length("review_conflicts"."reason") between 1 and 500)
);
--> statement-breakpoint
CREATE TABLE "review_settings" (
	"id" smallint PRIMARY KEY DEFAULT 1 NOT NULL,
	"per_application" smallint DEFAULT 0 NOT NULL,
	"updated_by" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "review_settings_one_row" CHECK ("review_settings"."id" = 1),
	CONSTRAINT "review_settings_per_application_range" CHECK ("review_settings"."per_application" between 0 and 10)
);
--> statement-breakpoint
CREATE TABLE "reviewers" (
	"address" text PRIMARY KEY NOT NULL,
	"added_by" text NOT NULL,
	"added_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "reviewers_address_lowercase" CHECK ("reviewers"."address" ~ '^0x[0-9a-f]{40}$')
);
--> statement-breakpoint
ALTER TABLE "application_votes" ADD COLUMN "after_seeing_others" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "review_assignments" ADD CONSTRAINT "review_assignments_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "review_conflicts" ADD CONSTRAINT "review_conflicts_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "review_assignments_reviewer_idx" ON "review_assignments" USING btree ("reviewer_address","assigned_at");