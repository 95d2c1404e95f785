// What the request pipeline hands to each interface's renderer (chat, responses, messages), streaming
// or not. Renderers are pure: they turn these into their wire format.
import type { ChatResult, DeltaEvent, RawEvent, Usage, Warning } from "../providers/types";
import type { ErrorBody } from "../http/errors";

export interface AttemptSummary {
  provider: string;
  provider_model_id: string;
  status: number;
  error_code: string;
}

export interface RoutingMetadata {
  provider: string;
  provider_model_id: string;
  model_canonical: string;
  routing_strategy: string;
  ttft_ms?: number;
  throughput_tps?: number;
  /** The served route's TTFT estimate the router ranked on (p50, ms, integer): the prior until measured. */
  ttft_ms_estimate: number;
  /** The served route's throughput estimate the router ranked on (p50, tokens/s, one decimal). */
  throughput_tps_estimate: number;
  /** The route led the plan to be measured (the bandit's pick), not because it ranked best. */
  exploration: boolean;
  /** The route led the plan because the conversation's prompt cache lives there. */
  sticky: boolean;
  cost: { usd: number; microdollars: number };
  warnings: Warning[];
  attempts: AttemptSummary[];
}

/** A completed non-streaming call. */
export interface PipelineResult {
  result: ChatResult;
  routing: RoutingMetadata;
  /** Which credential served the final attempt (platform calls are charged credits). */
  apiKeySource: "platform" | "byok";
  /** A native attempt's answer as the provider wrote it (JSON text): the client gets it with routing_metadata added. */
  nativeText?: string;
}

/**
 * The stream a renderer consumes: provider deltas (or a native stream's own events) as they arrive, then exactly one terminal event.
 * `done` carries the final usage and routing metadata; `failed` an error (after the first byte, when
 * no fallback is possible any more).
 */
export type PipelineEvent =
  | DeltaEvent
  | RawEvent
  | { type: "done"; usage: Usage; routing: RoutingMetadata }
  | { type: "failed"; error: ErrorBody["error"]; routing?: RoutingMetadata; native?: string };
