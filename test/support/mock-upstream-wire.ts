// The three providers' wire formats, as the mock upstream speaks them: SSE framing of recorded chunk
// fixtures, synthesized replies (text, tool calls, usage) in each provider's real JSON and stream
// shapes, and each provider's error body.
//
// Fixture files (test/fixtures/<openai|anthropic|gemini>/):
//   *.json        a response body exactly as the provider sends it (2xx answer or error body)
//   *.chunks.txt  a recorded stream: one SSE `data` payload per line, in order (`[DONE]` included for
//                 OpenAI). Framing is the provider's: OpenAI `data: …\n\n`, Anthropic and OpenAI's
//                 Responses API (test/fixtures/openai-responses/) `event: <payload.type>\ndata: …\n\n`,
//                 Gemini `data: …\r\n\r\n`.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { AdapterName } from "../../src/catalog/types";

export type WireFormat = AdapterName;
/** How a stream is framed: a provider's format, or OpenAI's Responses API (`POST …/v1/responses`). */
export type SseDialect = WireFormat | "openai-responses";

const FIXTURES = join(import.meta.dir, "..", "fixtures");

export function readFixture(file: string): string {
  return readFileSync(join(FIXTURES, file), "utf8");
}

/** The payload lines of a `.chunks.txt` fixture. */
export function fixtureChunks(file: string): string[] {
  return readFixture(file)
    .split("\n")
    .filter((line) => line.trim() !== "");
}

/** One SSE event on the wire, framed as `format` frames it. */
export function frameSse(format: SseDialect, payload: string): string {
  if (format === "gemini") return `data: ${payload}\r\n\r\n`;
  if (format === "anthropic" || format === "openai-responses") {
    const type = (JSON.parse(payload) as { type?: string }).type ?? "message";
    return `event: ${type}\ndata: ${payload}\n\n`;
  }
  return `data: ${payload}\n\n`;
}

/** A `.chunks.txt` fixture as the list of wire events its provider would send. */
export function fixtureSseEvents(format: SseDialect, file: string): string[] {
  return fixtureChunks(file).map((line) => frameSse(format, line));
}

export interface MockUsage {
  /** Prompt tokens, cached and cache-written ones included (the internal convention). */
  input?: number;
  /** Output tokens, reasoning included. */
  output?: number;
  cached?: number;
  cacheWrite?: number;
  reasoning?: number;
}

export interface MockToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

export interface ReplySpec {
  text?: string;
  toolCalls?: MockToolCall[];
  usage?: MockUsage;
  finish?: "stop" | "length" | "tool_calls";
}

export interface Resolved {
  text: string;
  toolCalls: MockToolCall[];
  usage: Required<MockUsage>;
  finish: "stop" | "length" | "tool_calls";
  model: string;
  id: string;
}

export function resolve(spec: ReplySpec, model: string): Resolved {
  const toolCalls = spec.toolCalls ?? [];
  const usage = { input: 10, output: 5, cached: 0, cacheWrite: 0, reasoning: 0, ...spec.usage };
  const finish = spec.finish ?? (toolCalls.length > 0 ? "tool_calls" : "stop");
  return {
    text: spec.text ?? (toolCalls.length > 0 ? "" : "Hello from the mock upstream."),
    toolCalls,
    usage,
    finish,
    model,
    id: crypto.randomUUID().replaceAll("-", "").slice(0, 24),
  };
}

/** Splits text into word-sized pieces, the way providers stream it. */
export function pieces(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 1; i <= text.length; i++) {
    if (i === text.length || text[i] === " ") {
      out.push(text.slice(start, i));
      start = i;
    }
  }
  return out.filter((p) => p !== "");
}

/** A synthesized non-streaming answer in the provider's JSON shape. */
export function replyJson(format: WireFormat, spec: ReplySpec, model: string): unknown {
  const r = resolve(spec, model);
  if (format === "anthropic") return anthropicJson(r);
  if (format === "gemini") return geminiJson(r);
  return openAIJson(r);
}

/** A synthesized stream as the provider's wire events (already framed). */
export function replySse(format: WireFormat, spec: ReplySpec, model: string, includeUsage = true): string[] {
  const r = resolve(spec, model);
  const payloads = format === "anthropic" ? anthropicChunks(r) : format === "gemini" ? geminiChunks(r) : openAIChunks(r, includeUsage);
  return payloads.map((p) => frameSse(format, typeof p === "string" ? p : JSON.stringify(p)));
}

function openAIUsage(u: Required<MockUsage>) {
  return {
    prompt_tokens: u.input,
    completion_tokens: u.output,
    total_tokens: u.input + u.output,
    prompt_tokens_details: { cached_tokens: u.cached, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: u.reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function openAIJson(r: Resolved) {
  const message: Record<string, unknown> = { role: "assistant", content: r.text === "" ? null : r.text, refusal: null, annotations: [] };
  if (r.toolCalls.length > 0) {
    message.tool_calls = r.toolCalls.map((c, i) => ({
      id: `call_${r.id}_${i}`,
      type: "function",
      function: { name: c.name, arguments: JSON.stringify(c.arguments) },
    }));
  }
  return {
    id: `chatcmpl-${r.id}`,
    object: "chat.completion",
    created: 1750000000,
    model: r.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: r.finish }],
    usage: openAIUsage(r.usage),
    service_tier: "default",
    system_fingerprint: "fp_mock",
  };
}

function openAIChunks(r: Resolved, includeUsage: boolean): (object | string)[] {
  const base = {
    id: `chatcmpl-${r.id}`,
    object: "chat.completion.chunk",
    created: 1750000000,
    model: r.model,
    system_fingerprint: "fp_mock",
  };
  const chunk = (delta: object, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const out: (object | string)[] = [chunk({ role: "assistant", content: "", refusal: null })];
  for (const p of pieces(r.text)) out.push(chunk({ content: p }));
  r.toolCalls.forEach((c, index) => {
    const args = JSON.stringify(c.arguments);
    const half = Math.floor(args.length / 2);
    out.push(chunk({ tool_calls: [{ index, id: `call_${r.id}_${index}`, type: "function", function: { name: c.name, arguments: "" } }] }));
    out.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, half) } }] }));
    out.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }));
  });
  out.push(chunk({}, r.finish));
  // Like OpenAI: the usage chunk only when the request asked for stream_options.include_usage.
  if (includeUsage) out.push({ ...base, choices: [], usage: openAIUsage(r.usage) });
  out.push("[DONE]");
  return out;
}

const ANTHROPIC_STOP = { stop: "end_turn", length: "max_tokens", tool_calls: "tool_use" } as const;

function anthropicUsage(u: Required<MockUsage>, output: number) {
  return {
    input_tokens: u.input - u.cached - u.cacheWrite,
    cache_creation_input_tokens: u.cacheWrite,
    cache_read_input_tokens: u.cached,
    output_tokens: output,
    service_tier: "standard",
  };
}

function anthropicJson(r: Resolved) {
  const content: object[] = [];
  if (r.text !== "") content.push({ type: "text", text: r.text });
  r.toolCalls.forEach((c, i) => content.push({ type: "tool_use", id: `toolu_${r.id}_${i}`, name: c.name, input: c.arguments }));
  return {
    id: `msg_${r.id}`,
    type: "message",
    role: "assistant",
    model: r.model,
    content,
    stop_reason: ANTHROPIC_STOP[r.finish],
    stop_sequence: null,
    usage: anthropicUsage(r.usage, r.usage.output),
  };
}

function anthropicChunks(r: Resolved): object[] {
  const out: object[] = [
    {
      type: "message_start",
      message: {
        id: `msg_${r.id}`,
        type: "message",
        role: "assistant",
        model: r.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: anthropicUsage(r.usage, 1),
      },
    },
  ];
  let block = 0;
  if (r.text !== "") {
    out.push({ type: "content_block_start", index: block, content_block: { type: "text", text: "" } }, { type: "ping" });
    for (const p of pieces(r.text)) out.push({ type: "content_block_delta", index: block, delta: { type: "text_delta", text: p } });
    out.push({ type: "content_block_stop", index: block++ });
  }
  r.toolCalls.forEach((c, i) => {
    const args = JSON.stringify(c.arguments);
    const half = Math.floor(args.length / 2);
    out.push({
      type: "content_block_start",
      index: block,
      content_block: { type: "tool_use", id: `toolu_${r.id}_${i}`, name: c.name, input: {} },
    });
    out.push({ type: "content_block_delta", index: block, delta: { type: "input_json_delta", partial_json: "" } });
    out.push({ type: "content_block_delta", index: block, delta: { type: "input_json_delta", partial_json: args.slice(0, half) } });
    out.push({ type: "content_block_delta", index: block, delta: { type: "input_json_delta", partial_json: args.slice(half) } });
    out.push({ type: "content_block_stop", index: block++ });
  });
  out.push({
    type: "message_delta",
    delta: { stop_reason: ANTHROPIC_STOP[r.finish], stop_sequence: null },
    usage: { output_tokens: r.usage.output },
  });
  out.push({ type: "message_stop" });
  return out;
}

function geminiUsage(u: Required<MockUsage>) {
  const candidates = u.output - u.reasoning;
  const usage: Record<string, unknown> = {
    promptTokenCount: u.input,
    candidatesTokenCount: candidates,
    totalTokenCount: u.input + u.output,
  };
  if (u.cached > 0) usage.cachedContentTokenCount = u.cached;
  if (u.reasoning > 0) usage.thoughtsTokenCount = u.reasoning;
  return usage;
}

function geminiParts(r: Resolved, text: string, withCalls: boolean): object[] {
  const parts: object[] = text === "" ? [] : [{ text }];
  if (withCalls) for (const c of r.toolCalls) parts.push({ functionCall: { name: c.name, args: c.arguments } });
  return parts;
}

const GEMINI_FINISH = { stop: "STOP", length: "MAX_TOKENS", tool_calls: "STOP" } as const;

function geminiJson(r: Resolved) {
  return {
    candidates: [{ content: { parts: geminiParts(r, r.text, true), role: "model" }, finishReason: GEMINI_FINISH[r.finish], index: 0 }],
    usageMetadata: geminiUsage(r.usage),
    modelVersion: r.model,
    responseId: r.id,
  };
}

function geminiChunks(r: Resolved): object[] {
  const texts = pieces(r.text);
  if (texts.length === 0) texts.push("");
  return texts.map((text, i) => {
    const last = i === texts.length - 1;
    const candidate: Record<string, unknown> = { content: { parts: geminiParts(r, text, last), role: "model" }, index: 0 };
    if (last) candidate.finishReason = GEMINI_FINISH[r.finish];
    const usage = last ? geminiUsage(r.usage) : { promptTokenCount: r.usage.input, totalTokenCount: r.usage.input };
    return { candidates: [candidate], usageMetadata: usage, modelVersion: r.model, responseId: r.id };
  });
}

const STATUS_TYPES: Record<number, { openai: string; anthropic: string; gemini: string }> = {
  400: { openai: "invalid_request_error", anthropic: "invalid_request_error", gemini: "INVALID_ARGUMENT" },
  401: { openai: "invalid_request_error", anthropic: "authentication_error", gemini: "UNAUTHENTICATED" },
  403: { openai: "invalid_request_error", anthropic: "permission_error", gemini: "PERMISSION_DENIED" },
  404: { openai: "invalid_request_error", anthropic: "not_found_error", gemini: "NOT_FOUND" },
  429: { openai: "rate_limit_exceeded", anthropic: "rate_limit_error", gemini: "RESOURCE_EXHAUSTED" },
  529: { openai: "server_error", anthropic: "overloaded_error", gemini: "UNAVAILABLE" },
};

/** An error body in the provider's own shape. */
export function errorBody(format: WireFormat, status: number, message: string): unknown {
  const types = STATUS_TYPES[status] ?? {
    openai: "server_error",
    anthropic: "api_error",
    gemini: status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION",
  };
  if (format === "anthropic") return { type: "error", error: { type: types.anthropic, message }, request_id: "req_mock" };
  if (format === "gemini") return { error: { code: status, message, status: types.gemini } };
  return { error: { message, type: types.openai, param: null, code: null } };
}

/** The provider's model listing (what validateCredential calls). */
export function modelsBody(format: WireFormat): unknown {
  if (format === "anthropic")
    return {
      data: [{ type: "model", id: "mock-model", display_name: "Mock", created_at: "2025-01-01T00:00:00Z" }],
      has_more: false,
      first_id: "mock-model",
      last_id: "mock-model",
    };
  if (format === "gemini")
    return { models: [{ name: "models/mock-model", displayName: "Mock", supportedGenerationMethods: ["generateContent"] }] };
  return { object: "list", data: [{ id: "mock-model", object: "model", created: 1750000000, owned_by: "mock" }] };
}
