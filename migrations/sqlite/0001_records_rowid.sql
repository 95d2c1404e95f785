PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_request_records` (
	`seq` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`request_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`workspace_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`endpoint` text NOT NULL,
	`model` text,
	`model_canonical` text,
	`provider` text,
	`provider_model_id` text,
	`api_key_id` text,
	`api_key_source` text,
	`status_code` integer NOT NULL,
	`success` integer NOT NULL,
	`is_final_attempt` integer NOT NULL,
	`latency_ms` integer NOT NULL,
	`ttft_ms` integer,
	`input_tokens` integer NOT NULL,
	`output_tokens` integer NOT NULL,
	`cached_tokens` integer NOT NULL,
	`reasoning_tokens` integer NOT NULL,
	`cost_microdollars` integer NOT NULL,
	`routing_strategy` text,
	`error_code` text,
	`trace_id` text,
	`user_id` text,
	`tags` text,
	`custom_fields` text
);
--> statement-breakpoint
INSERT INTO `__new_request_records`("seq", "id", "request_id", "attempt", "workspace_id", "created_at", "endpoint", "model", "model_canonical", "provider", "provider_model_id", "api_key_id", "api_key_source", "status_code", "success", "is_final_attempt", "latency_ms", "ttft_ms", "input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens", "cost_microdollars", "routing_strategy", "error_code", "trace_id", "user_id", "tags", "custom_fields") SELECT rowid, "id", "request_id", "attempt", "workspace_id", "created_at", "endpoint", "model", "model_canonical", "provider", "provider_model_id", "api_key_id", "api_key_source", "status_code", "success", "is_final_attempt", "latency_ms", "ttft_ms", "input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens", "cost_microdollars", "routing_strategy", "error_code", "trace_id", "user_id", "tags", "custom_fields" FROM `request_records`;--> statement-breakpoint
DROP TABLE `request_records`;--> statement-breakpoint
ALTER TABLE `__new_request_records` RENAME TO `request_records`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `rr_ws_created_idx` ON `request_records` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `rr_ws_request_idx` ON `request_records` (`workspace_id`,`request_id`);