CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`key_hash` text NOT NULL,
	`key_prefix` text NOT NULL,
	`scopes` text NOT NULL,
	`playground` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`expires_at` integer,
	`last_used_at` integer,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash_idx` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_ws_idx` ON `api_keys` (`workspace_id`);--> statement-breakpoint
CREATE TABLE `audit_events` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`type` text NOT NULL,
	`actor_api_key_id` text,
	`target_id` text,
	`data` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_ws_idx` ON `audit_events` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `budgets` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`scope` text NOT NULL,
	`scope_id` text NOT NULL,
	`period` text NOT NULL,
	`limit_microdollars` integer NOT NULL,
	`enforce` integer NOT NULL,
	`include_byok` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `budgets_scope_period_idx` ON `budgets` (`workspace_id`,`scope`,`scope_id`,`period`);--> statement-breakpoint
CREATE TABLE `byok_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`provider` text NOT NULL,
	`name` text NOT NULL,
	`key_prefix` text NOT NULL,
	`ciphertext` text NOT NULL,
	`nonce` text NOT NULL,
	`master_key_id` text NOT NULL,
	`is_default` integer NOT NULL,
	`disabled` integer NOT NULL,
	`validation_status` text NOT NULL,
	`account_tier` text,
	`account_tier_source` text,
	`last_validated_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `byok_ws_provider_idx` ON `byok_keys` (`workspace_id`,`provider`);--> statement-breakpoint
CREATE TABLE `credit_ledger` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`amount_microdollars` integer NOT NULL,
	`reason` text NOT NULL,
	`request_id` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `ledger_ws_idx` ON `credit_ledger` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `ledger_created_idx` ON `credit_ledger` (`created_at`);--> statement-breakpoint
CREATE TABLE `idempotency_records` (
	`workspace_id` text NOT NULL,
	`route` text NOT NULL,
	`key` text NOT NULL,
	`body_hash` text NOT NULL,
	`state` text NOT NULL,
	`response_status` integer,
	`response_body` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`workspace_id`, `route`, `key`)
);
--> statement-breakpoint
CREATE TABLE `invites` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`token_hash` text NOT NULL,
	`expires_at` integer NOT NULL,
	`accepted_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `invites_token_idx` ON `invites` (`token_hash`);--> statement-breakpoint
CREATE TABLE `members` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `members_ws_email_idx` ON `members` (`workspace_id`,`email`);--> statement-breakpoint
CREATE TABLE `request_records` (
	`id` text PRIMARY KEY NOT NULL,
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
CREATE INDEX `rr_ws_created_idx` ON `request_records` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `rr_ws_request_idx` ON `request_records` (`workspace_id`,`request_id`);--> statement-breakpoint
CREATE TABLE `routing_defaults` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`optimize` text,
	`data_policy` text,
	`allow_fallbacks` integer,
	`max_fallback_attempts` integer,
	`providers` text,
	`exclude_providers` text,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `usage_rollups` (
	`workspace_id` text NOT NULL,
	`day` text NOT NULL,
	`model` text NOT NULL,
	`provider` text NOT NULL,
	`api_key_id` text NOT NULL,
	`requests` integer NOT NULL,
	`errors` integer NOT NULL,
	`input_tokens` integer NOT NULL,
	`output_tokens` integer NOT NULL,
	`cost_microdollars` integer NOT NULL,
	PRIMARY KEY(`workspace_id`, `day`, `model`, `provider`, `api_key_id`)
);
--> statement-breakpoint
CREATE TABLE `workspaces` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
