-- A claim of an outbox row updates it in place (HOT): the index of due rows no longer names
-- next_attempt_at, and every page keeps room for the new row versions of a claim and its record.
DROP INDEX "webhook_deliveries_due_idx";--> statement-breakpoint
CREATE INDEX "webhook_deliveries_pending_idx" ON "webhook_deliveries" USING btree ("id") WHERE "webhook_deliveries"."status" = 'pending';--> statement-breakpoint
ALTER TABLE "webhook_deliveries" SET (fillfactor = 70);
