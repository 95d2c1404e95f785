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
  /**
   * The gateway's own time (ms, to 0.01): the call's time in the gateway minus the upstreams' (CallTiming).
   * Set when the answer is built (interface-call.ts), for a stream when its first bytes went to the client.
   */
  gateway_overhead_ms?: number;
}

/**
 * A call's readings of the monotonic clock (performance.now, ms), a few per call and never per chunk:
 * the Server-Timing header and routing_metadata.gateway_overhead_ms come from them.
 */
export interface CallTiming {
  /** When the route's handler began, the body read and parsed (its upload is the client's time, not the gateway's). */
  startedAt: number;
  /** The upstreams' share: every attempt's time until its answer (JSON), or until its first content (stream). */
  upstreamMs: number;
  /** A stream's own time until its first bytes were written to the client, minus upstreamMs (until then, the head's). */
  overheadMs: number;
}

/** A completed non-streaming call. */
export interface PipelineResult {
  result: ChatResult;
  routing: RoutingMetadata;
  /** Which credential served the final attempt (platform calls are charged credits). */
  apiKeySource: "platform" | "byok";
  /** A native attempt's answer as the provider wrote it (JSON text): the client gets it with routing_metadata added. */
  nativeText?: string;
  /** The upstreams' time (ms), summed over every attempt: failed ones were waits on an upstream too. */
  upstreamMs?: number;
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
