-- Decisions released together (issue 57, docs/application-form.md "Programmes and rounds"): an approve or
-- reject in a round whose release_mode is `together` writes its outbox rows and its inbox row held for the
-- round (held_round_id); no claim takes them and the inbox shows none until the release clears the mark.
-- rounds.released_by: who released it (null: its release_at came).
ALTER TABLE "notifications" ADD COLUMN "held_round_id" integer;--> statement-breakpoint
ALTER TABLE "rounds" ADD COLUMN "released_by" text;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "held_round_id" integer;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_held_round_id_rounds_id_fk" FOREIGN KEY ("held_round_id") REFERENCES "public"."rounds"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_held_round_id_rounds_id_fk" FOREIGN KEY ("held_round_id") REFERENCES "public"."rounds"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "notifications_held_idx" ON "notifications" USING btree ("held_round_id") WHERE "notifications"."held_round_id" is not null;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_held_idx" ON "webhook_deliveries" USING btree ("held_round_id") WHERE "webhook_deliveries"."held_round_id" is not null;