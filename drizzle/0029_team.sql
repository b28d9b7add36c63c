CREATE TABLE "team_events" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "team_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"actor" text NOT NULL,
	"action" text NOT NULL,
	"address" text NOT NULL,
	"role" text NOT NULL,
	"program_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "team_events_action_choice" CHECK ("team_events"."action" in ('add', 'remove')),
	CONSTRAINT "team_events_role_choice" CHECK ("team_events"."role" in ('owner', 'admin', 'reviewer'))
);
--> statement-breakpoint
CREATE TABLE "team_members" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "team_members_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"address" text NOT NULL,
	"role" text NOT NULL,
	"program_id" integer,
	"added_by" text NOT NULL,
	"added_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "team_members_address_role_program" UNIQUE NULLS NOT DISTINCT("address","role","program_id"),
	CONSTRAINT "team_members_address_lowercase" CHECK ("team_members"."address" ~ '^0x[0-9a-f]{40}$'),
	CONSTRAINT "team_members_role_choice" CHECK ("team_members"."role" in ('owner', 'admin', 'reviewer'))
);
--> statement-breakpoint
-- Issue 59: the reviewers added on /admin/reviewers become team reviewers of every programme, each as
-- they were added (by whom, when); nobody is lost. `reviewers` stays as a view of them, whose INSERT,
-- UPDATE and DELETE write the team, so that what read or seeded decision 0040's table still works.
INSERT INTO "team_members" ("address", "role", "program_id", "added_by", "added_at")
	SELECT "address", 'reviewer', NULL, "added_by", "added_at" FROM "reviewers"
	ON CONFLICT DO NOTHING;--> statement-breakpoint
DROP TABLE "reviewers";--> statement-breakpoint
CREATE VIEW "reviewers" AS
	SELECT "address", "added_by", "added_at" FROM "team_members"
	WHERE "role" = 'reviewer' AND "program_id" IS NULL;--> statement-breakpoint
ALTER VIEW "reviewers" ALTER COLUMN "added_at" SET DEFAULT now();--> statement-breakpoint
CREATE FUNCTION reviewers_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO team_members (address, role, program_id, added_by, added_at)
			VALUES (NEW.address, 'reviewer', NULL, NEW.added_by, coalesce(NEW.added_at, now()))
			ON CONFLICT DO NOTHING;
		RETURN NEW;
	ELSIF TG_OP = 'UPDATE' THEN
		UPDATE team_members SET address = NEW.address, added_by = NEW.added_by, added_at = NEW.added_at
			WHERE address = OLD.address AND role = 'reviewer' AND program_id IS NULL;
		RETURN NEW;
	END IF;
	DELETE FROM team_members WHERE address = OLD.address AND role = 'reviewer' AND program_id IS NULL;
	RETURN OLD;
END $$;--> statement-breakpoint
CREATE TRIGGER reviewers_write INSTEAD OF INSERT OR UPDATE OR DELETE ON "reviewers"
	FOR EACH ROW EXECUTE FUNCTION reviewers_write();--> statement-breakpoint
ALTER TABLE "team_events" ADD CONSTRAINT "team_events_program_id_programs_id_fk" FOREIGN KEY ("program_id") REFERENCES "public"."programs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_members" ADD CONSTRAINT "team_members_program_id_programs_id_fk" FOREIGN KEY ("program_id") REFERENCES "public"."programs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "team_events_created_idx" ON "team_events" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);