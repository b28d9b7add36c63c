ALTER TABLE "applicant_messages" ADD COLUMN "send_key" uuid;--> statement-breakpoint
CREATE UNIQUE INDEX "applicant_messages_send_key_idx" ON "applicant_messages" USING btree ("sent_by","send_key");