-- The insights charts (src/lib/server/insights/queries.ts) read narrow indexes only, so the page's
-- work follows the size of its window and not the width of the rows (motivations, notes).
CREATE INDEX IF NOT EXISTS "applications_insights_idx" ON "applications" USING btree ("created_at","id","review");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "applications_funnel_idx" ON "applications" USING btree ("review","allowlist","distribution");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "application_events_first_decision_idx" ON "application_events" USING btree ("application_id","created_at") WHERE "application_events"."field" = 'review' and "application_events"."to_state" <> 'pending';--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "check_ins_created_member_idx" ON "check_ins" USING btree ("created_at","member_address");--> statement-breakpoint
-- The /metrics outbox gauges: count and oldest of the waiting rows, count of the failed ones.
CREATE INDEX IF NOT EXISTS "webhook_deliveries_pending_age_idx" ON "webhook_deliveries" USING btree ("occurred_at") WHERE "webhook_deliveries"."status" = 'pending';--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "webhook_deliveries_failed_idx" ON "webhook_deliveries" USING btree ("id") WHERE "webhook_deliveries"."status" = 'failed';
