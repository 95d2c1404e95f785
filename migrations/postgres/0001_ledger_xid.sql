DROP INDEX "ledger_created_idx";--> statement-breakpoint
ALTER TABLE "credit_ledger" ADD COLUMN "xid" "xid8" DEFAULT pg_current_xact_id() NOT NULL;--> statement-breakpoint
CREATE INDEX "ledger_xid_idx" ON "credit_ledger" USING btree ("xid");