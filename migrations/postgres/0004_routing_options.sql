ALTER TABLE "routing_defaults" ADD COLUMN "min_throughput_tps" double precision;--> statement-breakpoint
ALTER TABLE "routing_defaults" ADD COLUMN "ttft_percentile" text;--> statement-breakpoint
ALTER TABLE "routing_defaults" ADD COLUMN "throughput_percentile" text;--> statement-breakpoint
ALTER TABLE "routing_defaults" ADD COLUMN "min_success_rate" double precision;--> statement-breakpoint
ALTER TABLE "routing_defaults" ADD COLUMN "prefer" text;--> statement-breakpoint
ALTER TABLE "routing_defaults" ADD COLUMN "only_byok" boolean;--> statement-breakpoint
ALTER TABLE "routing_defaults" ADD COLUMN "only_platform" boolean;--> statement-breakpoint
ALTER TABLE "routing_defaults" ADD COLUMN "require_parameters" boolean;