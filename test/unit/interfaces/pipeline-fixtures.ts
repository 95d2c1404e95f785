// Pipeline outputs to feed the interface renderers and encoders, and an SSE reader for their bytes.
import { createParser } from "eventsource-parser";
import type { ChatResult, ChunkDelta, FinishReason, ToolCall, Usage } from "../../../src/providers/types";
import type { PipelineEvent, PipelineResult, RoutingMetadata } from "../../../src/inference/types";

export const routing: RoutingMetadata = {
  provider: "alpha",
  provider_model_id: "chat-small-2026",
  model_canonical: "acme/chat-small",
  routing_strategy: "cost-focus",
  ttft_ms: 120,
  ttft_ms_estimate: 350,
  throughput_tps_estimate: 60,
  exploration: false,
  sticky: false,
  cost: { usd: 0.000042, microdollars: 42 },
  warnings: [],
  attempts: [],
};

export const usage: Usage = { inputTokens: 20, outputTokens: 7, cachedTokens: 5, cacheWriteTokens: 3, reasoningTokens: 2 };

export const weatherCall: ToolCall = { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } };

export function chatResult(message: Partial<ChatResult["choices"][number]["message"]>, finish: FinishReason): PipelineResult {
  const result: ChatResult = {
    id: "chatcmpl-1",
    created: 1_700_000_000,
    model: "chat-small-2026",
    choices: [
      { index: 0, message: { role: "assistant", content: null, refusal: null, ...message }, logprobs: null, finish_reason: finish },
    ],
    usage,
    systemFingerprint: null,
  };
  return { result, routing, apiKeySource: "platform" };
}

export function delta(d: ChunkDelta, finishReason: FinishReason | null = null): PipelineEvent {
  return { type: "delta", id: "chatcmpl-1", created: 1_700_000_000, model: "chat-small-2026", choiceIndex: 0, delta: d, finishReason };
}

export const done: PipelineEvent = { type: "done", usage, routing };

export const failed: PipelineEvent = {
  type: "failed",
  error: {
    message: "Upstream connection reset",
    type: "upstream_error",
    param: null,
    code: "provider_error",
    doc_url: "/docs/errors#provider_error",
    retryable: true,
  },
  routing,
};

export const textEvents: PipelineEvent[] = [
  delta({ role: "assistant", content: "" }),
  delta({ content: "Hello" }),
  delta({ content: " world" }),
  delta({}, "stop"),
  done,
];

export const toolEvents: PipelineEvent[] = [
  delta({ role: "assistant", content: "Let me check." }),
  delta({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "get_weather", arguments: "" } }] }),
  delta({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
  delta({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
  delta({}, "tool_calls"),
  done,
];

export const lengthEvents: PipelineEvent[] = [delta({ role: "assistant", content: "Once upon" }), delta({ content: " a" }, "length"), done];

export const midStreamFailureEvents: PipelineEvent[] = [delta({ role: "assistant", content: "Partial" }), failed];

export const unterminatedEvents: PipelineEvent[] = [delta({ role: "assistant", content: "Cut" })];

/** Runs events through an encoder and returns what it wrote. */
export async function encode(encoder: TransformStream<PipelineEvent, string>, events: PipelineEvent[]): Promise<string> {
  const source = new ReadableStream<PipelineEvent>({
    start(c) {
      for (const e of events) c.enqueue(e);
      c.close();
    },
  });
  return await new Response(source.pipeThrough(encoder)).text();
}

export interface SseEvent {
  event: string | undefined;
  data: Record<string, unknown>;
}

export function parseSse(text: string): SseEvent[] {
  const out: SseEvent[] = [];
  const parser = createParser({ onEvent: (m) => out.push({ event: m.event, data: JSON.parse(m.data) }) });
  parser.feed(text);
  return out;
}

/** A fetch that answers every call with this body, for driving the official SDKs without a server. */
export function fetchReturning(body: string, init: ResponseInit): typeof fetch {
  return (async () => new Response(body, init)) as unknown as typeof fetch;
}
