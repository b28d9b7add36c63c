-- When an outbox row was set aside (issue 54): its sender threw the same way SET_ASIDE_AFTER times
-- (src/lib/server/webhooks/outbox.ts), so it failed for good and /admin/webhooks lists it apart. A
-- nullable column: no table rewrite at any size.
ALTER TABLE "webhook_deliveries" ADD COLUMN "set_aside_at" timestamp with time zone;
