// The GenAI semantic conventions' attributes (gen_ai.*), plus the gateway's own (switchyard.*), built from
// the pipeline's values. Message contents appear only in the opt-in content attributes (contentOf*).
import type { Attributes } from "@opentelemetry/api";
import type { ChatMessage, ChatRequest, ChatResult, Usage } from "../../providers/types";

export const A = {
  operation: "gen_ai.operation.name",
  provider: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  maxTokens: "gen_ai.request.max_tokens",
  responseModel: "gen_ai.response.model",
  responseId: "gen_ai.response.id",
  finishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheRead: "gen_ai.usage.cache_read.input_tokens",
  cacheWrite: "gen_ai.usage.cache_creation.input_tokens",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
  errorType: "error.type",
  serverAddress: "server.address",
  serverPort: "server.port",
  httpStatus: "http.response.status_code",
  strategy: "switchyard.routing.strategy",
  cost: "switchyard.cost.microdollars",
  attempt: "switchyard.attempt",
  keySource: "switchyard.api_key_source",
} as const;

/** Catalog provider IDs whose GenAI conventions name differs; the others are their own name (openai, anthropic, groq…). */
const PROVIDER_NAMES: Record<string, string> = { gemini: "gcp.gemini", mistral: "mistral_ai", xai: "x_ai" };

export function providerName(providerId: string): string {
  return PROVIDER_NAMES[providerId] ?? providerId;
}

/** The operation of an inference endpoint: chat completions, Responses and Messages are all `chat`. */
export function operationOf(_endpoint: string): string {
  return "chat";
}

export function maxTokensOf(request: ChatRequest): number | undefined {
  return request.max_completion_tokens ?? request.max_tokens;
}

export interface Answer {
  id?: string;
  model?: string;
  finishReasons: string[];
  usage?: Usage;
  costMicrodollars: number;
}

export function answerAttributes(a: Answer): Attributes {
  const out: Attributes = { [A.finishReasons]: a.finishReasons, [A.cost]: a.costMicrodollars };
  if (a.id) out[A.responseId] = a.id;
  if (a.model) out[A.responseModel] = a.model;
  const u = a.usage;
  if (u) {
    out[A.inputTokens] = u.inputTokens;
    out[A.outputTokens] = u.outputTokens;
    out[A.cacheRead] = u.cachedTokens;
    if (u.cacheWriteTokens > 0) out[A.cacheWrite] = u.cacheWriteTokens;
  }
  return out;
}

export function resultAnswer(result: ChatResult, costMicrodollars: number): Answer {
  const finishReasons: string[] = [];
  for (const c of result.choices) if (c.finish_reason && !finishReasons.includes(c.finish_reason)) finishReasons.push(c.finish_reason);
  return { id: result.id, model: result.model, finishReasons, usage: result.usage, costMicrodollars };
}

type Part = { type: "text"; content: string } | Record<string, unknown>;

function partsOf(content: ChatMessage["content"] | null | undefined): Part[] {
  if (content === null || content === undefined) return [];
  if (typeof content === "string") return [{ type: "text", content }];
  return (content as unknown[]).map((p) => {
    const part = p as { type?: string; text?: string };
    return part.type === "text" && typeof part.text === "string" ? { type: "text", content: part.text } : (p as Record<string, unknown>);
  });
}

/** The prompt in the conventions' shape (gen_ai.input.messages): only with `tracing.record_content`. */
export function contentOfRequest(request: ChatRequest): string {
  return JSON.stringify(request.messages.map((m) => ({ role: m.role, parts: partsOf(m.content) })));
}

/** The completion in the conventions' shape (gen_ai.output.messages): only with `tracing.record_content`. */
export function contentOfOutput(choices: { text: string; finishReason: string | null }[]): string {
  return JSON.stringify(
    choices.map((c) => ({
      role: "assistant",
      parts: c.text ? [{ type: "text", content: c.text }] : [],
      finish_reason: c.finishReason ?? "",
    })),
  );
}
