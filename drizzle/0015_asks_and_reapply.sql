ALTER TABLE "application_events" ADD COLUMN "asks" jsonb;--> statement-breakpoint
ALTER TABLE "application_votes" ADD COLUMN "asks" jsonb;--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "reapply_after" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "application_events" ADD CONSTRAINT "application_events_asks_object" CHECK (jsonb_typeof("application_events"."asks") = 'object');--> statement-breakpoint
ALTER TABLE "application_votes" ADD CONSTRAINT "application_votes_asks_object" CHECK (jsonb_typeof("application_votes"."asks") = 'object');