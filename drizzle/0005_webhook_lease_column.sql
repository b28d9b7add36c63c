-- A claim leases an outbox row in a column of its own, which no index names, so that the claim is an
-- in-place (HOT) update; every page keeps room for the new row versions of a claim and its record.
ALTER TABLE "webhook_deliveries" ADD COLUMN "leased_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" SET (fillfactor = 70);
