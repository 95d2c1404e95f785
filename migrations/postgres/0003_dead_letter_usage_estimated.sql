CREATE TABLE "dead_letter_records" (
	"id" text PRIMARY KEY NOT NULL,
	"request_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"record" text NOT NULL,
	"error" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "request_records" ADD COLUMN "usage_estimated" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "dlr_ws_created_idx" ON "dead_letter_records" USING btree ("workspace_id","created_at");