// The streams the load generator sends, one per client dialect: chat completions (to an OpenAI-protocol
// route), Anthropic Messages (to an anthropic route) and OpenAI Responses (to a Responses-capable route).
// Each kind names its path, request body, headers and the check that a stream came back complete: the
// mock's tokens in order, the usage counting them, no error event, the terminal event last.
import { STREAM_CHUNKS, STREAM_TEXT } from "./mock-upstream";

export type StreamKind = "chat" | "messages" | "responses";
export const STREAM_KINDS: StreamKind[] = ["chat", "messages", "responses"];

export interface StreamKindSpec {
  /** Row label in the bench's table. */
  label: string;
  path: string;
  /** The gateway's model for this kind (bench/targets.ts writeConfig). */
  model: string;
  body: string;
  /** Headers besides content-type; `key` is the gateway's key, null for targets that take none. */
  headers(key: string | null): Record<string, string>;
  /** Why a stream's text is not complete, or null. Routing metadata is required where `expectRouting`. */
  check(text: string, expectRouting: boolean): string | null;
}

const SYSTEM = "You are a concise assistant. Answer in one short paragraph.";
const USER = "Summarise the benefits of a self-hosted model routing gateway for a small team in two sentences.";
export const CHAT_MESSAGES = [
  { role: "system", content: SYSTEM },
  { role: "user", content: USER },
];
const bearer = (key: string | null): Record<string, string> => (key ? { authorization: `Bearer ${key}` } : {});

/** Each SSE event's data as JSON (the `event:` line, where sent, repeats the data's `type`). */
function* events(text: string): Generator<{ raw: string; obj?: Record<string, unknown> }> {
  for (const event of text.split("\n\n")) {
    const at = event.startsWith("data: ") ? 0 : event.indexOf("\ndata: ") + 1;
    if (at === 0 && !event.startsWith("data: ")) continue;
    const raw = event.slice(at + 6);
    yield raw === "[DONE]" ? { raw } : { raw, obj: JSON.parse(raw) as Record<string, unknown> };
  }
}

/** Content, usage chunk, routing_metadata chunk, [DONE] last. */
export function checkChatStream(text: string, expectRouting: boolean): string | null {
  let content = "";
  let usage = false;
  let routing = false;
  let done = false;
  for (const { raw, obj } of events(text)) {
    if (done) return "data after [DONE]";
    if (raw === "[DONE]") {
      done = true;
      continue;
    }
    const c = obj as {
      error?: unknown;
      usage?: { completion_tokens?: number } | null;
      routing_metadata?: unknown;
      choices?: { delta?: { content?: string | null } }[];
    };
    if (c.error) return `in-band error: ${JSON.stringify(c.error)}`;
    if (c.usage && c.usage.completion_tokens === STREAM_CHUNKS) usage = true;
    if (c.routing_metadata) routing = true;
    content += c.choices?.[0]?.delta?.content ?? "";
  }
  if (content !== STREAM_TEXT) return `content mismatch: ${JSON.stringify(content.slice(0, 80))}`;
  if (!usage) return "no usage chunk";
  if (expectRouting && !routing) return "no routing_metadata chunk";
  if (!done) return "no [DONE]";
  return null;
}

interface DialectCheck {
  terminal: string;
  /** The text a delta event adds. */
  text(e: Record<string, unknown>): string | undefined;
  /** The output tokens an event reports, if it reports usage. */
  outputTokens(e: Record<string, unknown>): number | undefined;
  failed(e: Record<string, unknown>): boolean;
}

/**
 * The Messages and Responses streams' check: text from the delta events, usage with the mock's token
 * count, no error event, the terminal event last. Routing metadata is not asked for: those dialects have
 * no chunk of their own for it, and a native pass-through may carry it elsewhere or not at all.
 */
function dialectCheck(d: DialectCheck): (text: string) => string | null {
  return (text) => {
    let content = "";
    let usage = false;
    let done = false;
    for (const { raw, obj } of events(text)) {
      if (done) return `event after ${d.terminal}`;
      if (!obj) return `unexpected data: ${raw.slice(0, 80)}`;
      if (d.failed(obj)) return `error event: ${raw.slice(0, 300)}`;
      content += d.text(obj) ?? "";
      if (d.outputTokens(obj) === STREAM_CHUNKS) usage = true;
      if (obj.type === d.terminal) done = true;
    }
    if (content !== STREAM_TEXT) return `content mismatch: ${JSON.stringify(content.slice(0, 80))}`;
    if (!usage) return `no usage of ${STREAM_CHUNKS} output tokens`;
    if (!done) return `no ${d.terminal}`;
    return null;
  };
}

type Loose = Record<string, { [k: string]: unknown } | undefined>;

export const checkMessagesStream = dialectCheck({
  terminal: "message_stop",
  text: (e) =>
    e.type === "content_block_delta" && (e as Loose).delta?.type === "text_delta" ? ((e as Loose).delta!.text as string) : undefined,
  outputTokens: (e) => (e.type === "message_delta" ? ((e as Loose).usage?.output_tokens as number | undefined) : undefined),
  failed: (e) => e.type === "error",
});

export const checkResponsesStream = dialectCheck({
  terminal: "response.completed",
  text: (e) => (e.type === "response.output_text.delta" ? (e.delta as string) : undefined),
  outputTokens: (e) =>
    e.type === "response.completed" ? ((e as Loose).response?.usage as { output_tokens?: number } | undefined)?.output_tokens : undefined,
  failed: (e) => e.type === "error" || e.type === "response.failed" || e.type === "response.incomplete",
});

export const KINDS: Record<StreamKind, StreamKindSpec> = {
  chat: {
    label: "streaming",
    path: "/v1/chat/completions",
    model: "bench/chat",
    body: JSON.stringify({
      model: "bench/chat",
      messages: CHAT_MESSAGES,
      max_tokens: 64,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    }),
    headers: bearer,
    check: checkChatStream,
  },
  messages: {
    label: "Messages stream → anthropic",
    path: "/v1/messages",
    model: "bench/messages",
    body: JSON.stringify({
      model: "bench/messages",
      max_tokens: 64,
      system: SYSTEM,
      messages: [{ role: "user", content: USER }],
      temperature: 0,
      stream: true,
    }),
    // Anthropic's SDKs send the key as x-api-key, with the API version.
    headers: (key) => ({ ...(key ? { "x-api-key": key } : {}), "anthropic-version": "2023-06-01" }),
    check: (text) => checkMessagesStream(text),
  },
  responses: {
    label: "Responses stream → responses",
    path: "/v1/responses",
    model: "bench/responses",
    body: JSON.stringify({ model: "bench/responses", input: CHAT_MESSAGES, max_output_tokens: 64, temperature: 0, stream: true }),
    headers: bearer,
    check: (text) => checkResponsesStream(text),
  },
};
