-- One outbox, no sentinels (issue 56): a push or e-mail row names its channel in `channel` and no URL;
-- url_hash and url_host (until now 'push' / 'email' on those rows) are a webhook row's only. The table
-- keeps its name and columns, so an operator's queries of webhook_deliveries read as before
-- (docs/data.md).
ALTER TABLE "webhook_deliveries" ALTER COLUMN "url_hash" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ALTER COLUMN "url_host" DROP NOT NULL;--> statement-breakpoint
-- A row that carries a sentinel but the default channel (none is written so, but a hand-made one may
-- be) goes to the channel its sentinel names: a real URL's hash is 64 hex digits, never 'push' or 'email'.
UPDATE "webhook_deliveries" SET "channel" = "url_hash"
	WHERE "channel" = 'webhook' AND "url_hash" IN ('push', 'email');--> statement-breakpoint
UPDATE "webhook_deliveries" SET "url_hash" = NULL, "url_host" = NULL
	WHERE "channel" <> 'webhook' AND ("url_hash" IS NOT NULL OR "url_host" IS NOT NULL);--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_url_of_webhooks" CHECK (("webhook_deliveries"."channel" = 'webhook') = ("webhook_deliveries"."url_hash" is not null and "webhook_deliveries"."url_host" is not null));
