// The bench mock's streams in the two other wire dialects, pre-encoded: Anthropic Messages SSE (POST
// …/v1/messages) and OpenAI Responses SSE (POST …/responses). Each carries the chat stream's tokens,
// one `tokN ` per delta event and as many of them, and the same usage, so the three stream rows compare
// the same answer; only each dialect's own framing events around the deltas differ. Events are
// `event: <type>` + `data: <json>`, as both APIs send them.
import { PROMPT_TOKENS, STREAM_CHUNKS } from "./mock-upstream";

/** One stream's frames: `head` goes with the first delta (after the TTFT), `tail` right after the last. */
export interface StreamFrames {
  head: Uint8Array[];
  content: Uint8Array[];
  tail: Uint8Array[];
}

const enc = new TextEncoder();
const named = (obj: { type: string; [field: string]: unknown }) => enc.encode(`event: ${obj.type}\ndata: ${JSON.stringify(obj)}\n\n`);
/** The chat stream's tokens (computed on call: this module and mock-upstream.ts import each other). */
const tokens = () => Array.from({ length: STREAM_CHUNKS }, (_, i) => `tok${i} `);

export function messagesFrames(model: string): StreamFrames {
  const message = {
    id: "msg_bench",
    type: "message",
    role: "assistant",
    model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: PROMPT_TOKENS, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
  };
  return {
    head: [
      named({ type: "message_start", message }),
      named({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
    ],
    content: tokens().map((t) => named({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: t } })),
    tail: [
      named({ type: "content_block_stop", index: 0 }),
      named({
        type: "message_delta",
        delta: { stop_reason: "end_turn", stop_sequence: null },
        usage: { output_tokens: STREAM_CHUNKS },
      }),
      named({ type: "message_stop" }),
    ],
  };
}

export function responsesFrames(model: string): StreamFrames {
  let seq = 0;
  const text = tokens().join("");
  const ev = (type: string, fields: Record<string, unknown>) => named({ type, sequence_number: seq++, ...fields });
  const response = (status: string, output: unknown[], usage: unknown) => ({
    id: "resp_bench",
    object: "response",
    created_at: 1_700_000_000,
    status,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    store: false,
    temperature: 1,
    text: { format: { type: "text" } },
    tool_choice: "auto",
    tools: [],
    top_p: 1,
    truncation: "disabled",
    usage,
    metadata: {},
  });
  const item = { id: "msg_bench", type: "message", status: "in_progress", content: [], role: "assistant" };
  const at = { item_id: item.id, output_index: 0, content_index: 0 };
  const part = { type: "output_text", annotations: [], logprobs: [], text };
  const doneItem = { ...item, status: "completed", content: [part] };
  const usage = {
    input_tokens: PROMPT_TOKENS,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: STREAM_CHUNKS,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: PROMPT_TOKENS + STREAM_CHUNKS,
  };
  return {
    head: [
      ev("response.created", { response: response("in_progress", [], null) }),
      ev("response.in_progress", { response: response("in_progress", [], null) }),
      ev("response.output_item.added", { output_index: 0, item }),
      ev("response.content_part.added", { ...at, part: { ...part, text: "" } }),
    ],
    content: tokens().map((t) => ev("response.output_text.delta", { ...at, delta: t, logprobs: [] })),
    tail: [
      ev("response.output_text.done", { ...at, text, logprobs: [] }),
      ev("response.content_part.done", { ...at, part }),
      ev("response.output_item.done", { output_index: 0, item: doneItem }),
      ev("response.completed", { response: response("completed", [doneItem], usage) }),
    ],
  };
}
