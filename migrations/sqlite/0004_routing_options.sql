ALTER TABLE `routing_defaults` ADD `min_throughput_tps` real;--> statement-breakpoint
ALTER TABLE `routing_defaults` ADD `ttft_percentile` text;--> statement-breakpoint
ALTER TABLE `routing_defaults` ADD `throughput_percentile` text;--> statement-breakpoint
ALTER TABLE `routing_defaults` ADD `min_success_rate` real;--> statement-breakpoint
ALTER TABLE `routing_defaults` ADD `prefer` text;--> statement-breakpoint
ALTER TABLE `routing_defaults` ADD `only_byok` integer;--> statement-breakpoint
ALTER TABLE `routing_defaults` ADD `only_platform` integer;--> statement-breakpoint
ALTER TABLE `routing_defaults` ADD `require_parameters` integer;