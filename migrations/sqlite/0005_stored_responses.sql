CREATE TABLE `stored_responses` (
	`workspace_id` text NOT NULL,
	`id` text NOT NULL,
	`input` text NOT NULL,
	`response` text NOT NULL,
	`bytes` integer NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`workspace_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `stored_responses_expires_idx` ON `stored_responses` (`expires_at`);