// The one internal request/response model shared by every interface and adapter: OpenAI's chat
// completions shape (the lingua franca of the field). /v1/responses and /v1/messages translate into it
// at the edge; adapters translate it to each provider's wire protocol.
import type { AdapterName, ChatReasoning } from "../catalog/types";
import type { SseEvent } from "./sse-decode";
import type { ReasoningDetail } from "./reasoning";

export type Role = "system" | "developer" | "user" | "assistant" | "tool";

export interface TextPart {
  type: "text";
  text: string;
}
export interface ImagePart {
  type: "image_url";
  image_url: { url: string; detail?: string };
}
export type ContentPart = TextPart | ImagePart | { type: string; [k: string]: unknown };

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: Role;
  content: string | ContentPart[] | null;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  /** An assistant turn's reasoning, each entry tagged with its provider family (reasoning.ts). */
  reasoning_details?: ReasoningDetail[];
  /** On a tool message: Anthropic's cache breakpoint on its tool_result block. */
  cache_control?: CacheControl;
  [k: string]: unknown;
}

/** Anthropic's prompt-cache breakpoint, as clients mark parts, tools and tool results with it. */
export interface CacheControl {
  type: string;
  ttl?: string;
}

export interface ToolDef {
  type: "function";
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
  cache_control?: CacheControl;
}

/**
 * What a client's dialect asked that the chat request has no field for, for the adapters whose wire can
 * say it. Under a symbol so that no wire serialises it (the OpenAI-compatible body is the request itself).
 */
export const HINTS: unique symbol = Symbol("switchyard.request-hints");

export interface RequestHints {
  /** Anthropic `thinking.budget_tokens` as the client gave it (reasoning_effort is its nearest effort). */
  thinkingBudget?: number;
  /** Responses `reasoning.summary` ("auto", "concise", "detailed"): show the reasoning, summarised. */
  reasoningSummary?: string;
  /** Responses `include` values the client asked for. */
  include?: string[];
}

/** An OpenAI chat request without the gateway's own fields (`gateway`, `extensions` are removed). */
export interface ChatRequest {
  [HINTS]?: RequestHints;
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  tools?: ToolDef[];
  tool_choice?: unknown;
  parallel_tool_calls?: boolean;
  response_format?: { type: "text" | "json_object" | "json_schema"; json_schema?: unknown };
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  stop?: string | string[];
  seed?: number;
  n?: number;
  logprobs?: boolean;
  top_logprobs?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  logit_bias?: Record<string, number>;
  user?: string;
  stream_options?: { include_usage?: boolean };
  reasoning_effort?: string;
  /** Unknown top-level fields are carried through to OpenAI-compatible providers. */
  [k: string]: unknown;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Prompt tokens read from the provider's cache (part of inputTokens). */
  cachedTokens: number;
  /** Prompt tokens written to the provider's cache (part of inputTokens). */
  cacheWriteTokens: number;
  /** Output tokens spent on reasoning (part of outputTokens). */
  reasoningTokens: number;
}

export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "function_call";

export interface ChatChoice {
  index: number;
  message: {
    role: "assistant";
    content: string | null;
    refusal: string | null;
    tool_calls?: ToolCall[];
    /** The model's visible reasoning (Anthropic thinking), under the name DeepSeek and LiteLLM use in chat. */
    reasoning_content?: string;
    /** The same reasoning entry by entry, signatures included (reasoning.ts). */
    reasoning_details?: ReasoningDetail[];
    /** Citations of the answer's text (OpenAI's chat `annotations`: `url_citation`, …). */
    annotations?: unknown[];
  };
  logprobs: unknown | null;
  finish_reason: FinishReason;
}

/** A complete (non-streaming) answer, already in OpenAI shape, with usage normalised. */
export interface ChatResult {
  id: string;
  created: number;
  model: string;
  choices: ChatChoice[];
  usage: Usage;
  systemFingerprint: string | null;
}

export interface ChunkDelta {
  role?: "assistant";
  content?: string | null;
  refusal?: string | null;
  tool_calls?: { index: number; id?: string; type?: "function"; function?: { name?: string; arguments?: string } }[];
  /** Delta fields the chat model has no name for (reasoning_content, annotations, audio…): the chat wire writes them back as they came. */
  extra?: Record<string, unknown>;
}

/**
 * What an adapter's stream translator emits: OpenAI-shaped deltas, then usage and the end.
 * The pipeline writes `delta` events to the client as they arrive and emits usage exactly once.
 */
export type StreamEvent =
  | {
      type: "delta";
      id: string;
      created: number;
      model: string;
      choiceIndex: number;
      delta: ChunkDelta;
      finishReason: FinishReason | null;
      logprobs?: unknown;
      /** `delta` as the chat wire's JSON text, when it came through unparsed (openai-compatible/plain-delta.ts). */
      deltaJson?: string;
    }
  | RawEvent
  | { type: "usage"; usage: Usage }
  | { type: "error"; error: UpstreamError };

/**
 * One upstream SSE event of a native pass-through (the client speaks the route's own wire): written to
 * the client as it came. `content` marks the events that are the answer itself (the stream commits at
 * the first, and TTFT counts to it); `chars`, the output it carries, is for the estimate when the usage
 * never comes. The event that carries the final usage is `held` with its data parsed: the gateway adds
 * `routing_metadata` to it (`at` the top of the data or inside its `response`) once the call settles,
 * and writes it and everything after it then.
 */
export interface RawEvent {
  type: "raw";
  text: string;
  content: boolean;
  chars: number;
  held?: { event: string; data: Record<string, unknown>; at: "top" | "response" };
}

/** One content delta of a stream (the event type every adapter emits most). */
export type DeltaEvent = Extract<StreamEvent, { type: "delta" }>;

/**
 * The pass-through of plain content chunks (inference/upstream-events.ts): most chunks of a stream are
 * one choice's plain text, and when the upstream writes that choice exactly as the client's wire would
 * — `{"index":0,"delta":{"content":"…"},"logprobs":null,"finish_reason":null}` — its bytes can go to
 * the client as they came, between the client wire's own head and end, with no decoding, parsing or
 * re-encoding. The stream transformer that can find such a choice says so with `plainChoice`; the
 * client's encoder that can frame one says so with `plainFrame`. Anything else takes the full path.
 */
export interface PlainChoiceReader {
  /**
   * For one SSE event in bytes[start, end) (its single `data: ` line, without the line end), the
   * offset where its choice's JSON starts when the event is a plain content delta of choice 0 that this
   * transformer would read as exactly that choice (content without escapes, valid UTF-8), else -1. The
   * choice's JSON then ends (exclusive) at `choiceEnd`.
   */
  plainChoice(bytes: Uint8Array, start: number, end: number): number;
  readonly choiceEnd: number;
  /**
   * A native reader's events are two lines (`event: …` then `data: …`): `end` is then the data line's
   * end, and the range handed back is the whole event, its blank line included (native-events.ts).
   */
  readonly twoLine?: boolean;
  /** Bytes of each passed range that are not output (for the estimate); the chat choice's own by default. */
  readonly overhead?: number;
}

/** A client wire that writes a plain choice (PlainChoiceReader) as head + the choice's bytes + tail. */
export interface PlainChoiceFramer {
  /** The chunk's text before and after the choice, once a plain choice of index 0 is written that way; else null. */
  plainFrame(): { head: Uint8Array; tail: Uint8Array } | null;
}

export interface Warning {
  type: "unsupported_parameter";
  code: string;
  message: string;
}

/** Where and how one attempt is sent. Built by the pipeline from the catalog; never from client input. */
export interface UpstreamTarget {
  providerId: string;
  adapter: AdapterName;
  baseUrl: string;
  apiKey: string | null;
  providerModelId: string;
  /** Provider-specific fields from the request's `extensions[providerId]`, merged into the body. */
  extensions?: Record<string, unknown>;
  /** Default max output for adapters that require one (Anthropic). */
  maxOutputTokens: number;
  /** What a chat-completions vendor takes back of a turn's reasoning (its catalog row; openai-compatible/vendor.ts). */
  chatReasoning?: ChatReasoning;
  /** Whether a chat-completions vendor takes Anthropic's cache_control markers (OpenRouter does). */
  cacheControl?: boolean;
}

export type UpstreamErrorCode = "provider_error" | "provider_timeout" | "invalid_request" | "rate_limited" | "auth_failed";

export interface UpstreamError {
  code: UpstreamErrorCode;
  /** HTTP status from upstream, 0 for a connection failure or timeout. */
  status: number;
  /** May another provider be tried? (connection error, timeout, 408, 409, 429, 5xx) */
  retryable: boolean;
  /** Human message, with no credential in it. */
  message: string;
  /** From the provider's Retry-After, when present. */
  retryAfterMs?: number;
  /** A timeout of the attempt's whole duration (not connect, first byte or silence): not held against the route. */
  wholeAttempt?: boolean;
  /**
   * A native attempt's error as the provider wrote it (credential cut out): the HTTP body of a non-2xx
   * answer, or the SSE event text of a mid-stream error. The client of that wire gets it as it is.
   */
  native?: { status: number; body: string };
}

export type CredentialCheck = { ok: true; detectedTier?: string } | { ok: false; kind: "invalid" | "unavailable"; message: string };

export interface BuiltRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  warnings: Warning[];
}

/**
 * A request in a provider's own dialect, passed through (inference/native.ts): the client's body without
 * the gateway's fields, and the client's headers the wire defines (anthropic-version, anthropic-beta,
 * OpenAI-Beta).
 */
export interface NativeRequest {
  wire: NativeWire;
  body: Record<string, unknown>;
  headers: Record<string, string>;
  /** What the gateway had to change in the body (inference/native-carried.ts), for routing_metadata.warnings. */
  warnings?: Warning[];
}

/** The dialects that pass through: Anthropic Messages, OpenAI's Responses API, and chat completions. */
export type NativeWire = "anthropic" | "responses" | "chat";

/** A wire adapter that also sends a client's native body as it is (stream events come back as RawEvents). */
export interface NativeAdapter extends ProviderAdapter {
  readonly wire: NativeWire;
  buildNative(native: NativeRequest, target: UpstreamTarget, stream: boolean): BuiltRequest;
}

export interface ProviderAdapter {
  readonly name: AdapterName;
  buildRequest(req: ChatRequest, target: UpstreamTarget): BuiltRequest;
  /** Parses a 2xx JSON body into the internal result. */
  parseResponse(json: unknown, target: UpstreamTarget): ChatResult;
  /** Bytes of the upstream SSE body → internal stream events. */
  streamTransform(target: UpstreamTarget): TransformStream<Uint8Array, StreamEvent>;
  /**
   * The SSE-event → internal-event step of streamTransform as a bare Transformer (synchronous), so the
   * pipeline can drive decode, translate and encode in one pass per network chunk (inference/upstream-events.ts).
   */
  streamTransformer(target: UpstreamTarget): Transformer<SseEvent, StreamEvent> & Partial<PlainChoiceReader>;
  /** Maps an upstream non-2xx answer to an UpstreamError; the message never carries `credential` (the key the attempt sent). */
  classifyError(status: number, bodyText: string, headers: Headers, credential?: string | null): UpstreamError;
  /** Checks a credential against the provider (BYOK): cheap authenticated call, bounded by timeoutMs. */
  validateCredential(baseUrl: string, apiKey: string, timeoutMs: number, fetchImpl?: typeof fetch): Promise<CredentialCheck>;
}
