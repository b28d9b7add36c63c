-- The locale of a member's last signed-in page visit (DECISIONS "Every applicant in their language"): the
-- notifications and e-mails they are sent speak it. A fast default: no table rewrite at any size.
ALTER TABLE "members" ADD COLUMN "locale" text DEFAULT 'en' NOT NULL;--> statement-breakpoint
ALTER TABLE "members" ADD CONSTRAINT "members_locale_known" CHECK ("members"."locale" IN ('en', 'es', 'pt-BR', 'zh-Hans', 'ar'));