// Upstream answers in each wire's real format for the translation matrix (issue 55): a turn that thinks
// (with the provider's signature), says a line, calls a tool, and reports cache usage; JSON and SSE.
// Turn `n` gets its own signatures and call ids, so a multi-turn test can tell them apart.
import type { Behaviour } from "./mock-upstream";

export type Wire = "openai" | "responses" | "anthropic" | "gemini";

export const THOUGHT = "I should list the files.";
export const SAID = "Listing.";
export const TOOL = { name: "ls", args: { path: "." } };

export const anthropicSig = (n: number) => `EqAnthSig${n}==`;
export const geminiThoughtSig = (n: number) => `R2VtVGhvdWdodA${n}==`;
export const geminiCallSig = (n: number) => `R2VtRm5TaWc${n}==`;
export const reasoningItemId = (n: number) => `rs_up${n}`;
export const encryptedContent = (n: number) => `gAAAAB-encrypted-${n}`;
const CALL_PREFIX: Record<Wire, string> = { anthropic: "toolu_", gemini: "call_gem_", openai: "call_oa_", responses: "call_resp_" };
export const callId = (wire: Wire, n: number) => `${CALL_PREFIX[wire]}${n}`;

const sse = (event: string | null, data: unknown) => `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`;

function anthropicJson(n: number) {
  return {
    id: `msg_up${n}`,
    type: "message",
    role: "assistant",
    model: "claude-solo",
    content: [
      { type: "thinking", thinking: THOUGHT, signature: anthropicSig(n) },
      { type: "text", text: SAID },
      { type: "tool_use", id: callId("anthropic", n), name: TOOL.name, input: TOOL.args },
    ],
    stop_reason: "tool_use",
    stop_sequence: null,
    usage: { input_tokens: 20, output_tokens: 30, cache_creation_input_tokens: 30, cache_read_input_tokens: 50 },
  };
}

function anthropicSse(n: number): string[] {
  const usage = { input_tokens: 20, output_tokens: 1, cache_creation_input_tokens: 30, cache_read_input_tokens: 50 };
  return [
    sse("message_start", {
      type: "message_start",
      message: { id: `msg_up${n}`, type: "message", role: "assistant", model: "claude-solo", content: [], stop_reason: null, usage },
    }),
    sse("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } }),
    sse("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "I should list " } }),
    sse("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "the files." } }),
    sse("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: anthropicSig(n) } }),
    sse("content_block_stop", { type: "content_block_stop", index: 0 }),
    sse("content_block_start", { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } }),
    sse("content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: SAID } }),
    sse("content_block_stop", { type: "content_block_stop", index: 1 }),
    sse("content_block_start", {
      type: "content_block_start",
      index: 2,
      content_block: { type: "tool_use", id: callId("anthropic", n), name: TOOL.name, input: {} },
    }),
    sse("content_block_delta", { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '{"path":' } }),
    sse("content_block_delta", { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '"."}' } }),
    sse("content_block_stop", { type: "content_block_stop", index: 2 }),
    sse("message_delta", { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 30 } }),
    sse("message_stop", { type: "message_stop" }),
  ];
}

const geminiUsage = {
  promptTokenCount: 100,
  candidatesTokenCount: 22,
  thoughtsTokenCount: 8,
  cachedContentTokenCount: 50,
  totalTokenCount: 130,
};

function geminiParts(n: number) {
  return [
    { text: THOUGHT, thought: true, thoughtSignature: geminiThoughtSig(n) },
    { text: SAID },
    { functionCall: { id: callId("gemini", n), name: TOOL.name, args: TOOL.args }, thoughtSignature: geminiCallSig(n) },
  ];
}

function geminiJson(n: number) {
  return {
    candidates: [{ content: { role: "model", parts: geminiParts(n) }, finishReason: "STOP", index: 0 }],
    usageMetadata: geminiUsage,
    modelVersion: "gemini-solo",
    responseId: `gem${n}`,
  };
}

function geminiSse(n: number): string[] {
  const [thought, said, call] = geminiParts(n);
  const event = (parts: unknown[], last = false) =>
    sse(null, {
      candidates: [{ content: { role: "model", parts }, index: 0, ...(last ? { finishReason: "STOP" } : {}) }],
      usageMetadata: geminiUsage,
      modelVersion: "gemini-solo",
      responseId: `gem${n}`,
    });
  return [event([thought]), event([said]), event([call], true)];
}

function openaiJson(n: number) {
  return {
    id: `chatcmpl-${n}`,
    object: "chat.completion",
    created: 1750000000,
    model: "alpha-solo",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: SAID,
          reasoning_content: THOUGHT,
          tool_calls: [{ id: callId("openai", n), type: "function", function: { name: TOOL.name, arguments: JSON.stringify(TOOL.args) } }],
        },
        logprobs: null,
        finish_reason: "tool_calls",
      },
    ],
    usage: {
      prompt_tokens: 100,
      completion_tokens: 30,
      total_tokens: 130,
      prompt_tokens_details: { cached_tokens: 50 },
      completion_tokens_details: { reasoning_tokens: 8 },
    },
  };
}

function openaiSse(n: number): string[] {
  const chunk = (delta: unknown, finish: string | null = null) =>
    sse(null, {
      id: `chatcmpl-${n}`,
      object: "chat.completion.chunk",
      created: 1750000000,
      model: "alpha-solo",
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });
  const json = openaiJson(n);
  return [
    chunk({ role: "assistant", content: "" }),
    chunk({ reasoning_content: "I should list " }),
    chunk({ reasoning_content: "the files." }),
    chunk({ content: SAID }),
    chunk({ tool_calls: [{ index: 0, id: callId("openai", n), type: "function", function: { name: TOOL.name, arguments: "" } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(TOOL.args) } }] }),
    chunk({}, "tool_calls"),
    sse(null, {
      id: `chatcmpl-${n}`,
      object: "chat.completion.chunk",
      created: 1750000000,
      model: "alpha-solo",
      choices: [],
      usage: json.usage,
    }),
    "data: [DONE]\n\n",
  ];
}

const responsesUsage = {
  input_tokens: 100,
  input_tokens_details: { cached_tokens: 50 },
  output_tokens: 30,
  output_tokens_details: { reasoning_tokens: 8 },
  total_tokens: 130,
};

function responsesOutput(n: number) {
  return [
    {
      type: "reasoning",
      id: reasoningItemId(n),
      summary: [{ type: "summary_text", text: THOUGHT }],
      encrypted_content: encryptedContent(n),
    },
    {
      type: "message",
      id: `msg_up${n}`,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: SAID, annotations: [] }],
    },
    {
      type: "function_call",
      id: `fc_up${n}`,
      call_id: callId("responses", n),
      name: TOOL.name,
      arguments: JSON.stringify(TOOL.args),
      status: "completed",
    },
  ];
}

function responsesJson(n: number) {
  return {
    id: `resp_up${n}`,
    object: "response",
    created_at: 1750000000,
    status: "completed",
    model: "alpha-pro",
    output: responsesOutput(n),
    usage: responsesUsage,
  };
}

function responsesSse(n: number): string[] {
  const [reasoning, message, call] = responsesOutput(n) as Record<string, any>[];
  let seq = 0;
  const ev = (type: string, fields: Record<string, unknown>) => sse(type, { type, sequence_number: seq++, ...fields });
  const base = { id: `resp_up${n}`, object: "response", created_at: 1750000000, model: "alpha-pro" };
  return [
    ev("response.created", { response: { ...base, status: "in_progress", output: [] } }),
    ev("response.output_item.added", { output_index: 0, item: { type: "reasoning", id: reasoning!.id, summary: [] } }),
    ev("response.reasoning_summary_part.added", {
      item_id: reasoning!.id,
      output_index: 0,
      summary_index: 0,
      part: { type: "summary_text", text: "" },
    }),
    ev("response.reasoning_summary_text.delta", { item_id: reasoning!.id, output_index: 0, summary_index: 0, delta: "I should list " }),
    ev("response.reasoning_summary_text.delta", { item_id: reasoning!.id, output_index: 0, summary_index: 0, delta: "the files." }),
    ev("response.reasoning_summary_text.done", { item_id: reasoning!.id, output_index: 0, summary_index: 0, text: THOUGHT }),
    ev("response.reasoning_summary_part.done", {
      item_id: reasoning!.id,
      output_index: 0,
      summary_index: 0,
      part: { type: "summary_text", text: THOUGHT },
    }),
    ev("response.output_item.done", { output_index: 0, item: reasoning }),
    ev("response.output_item.added", { output_index: 1, item: { ...message, status: "in_progress", content: [] } }),
    ev("response.output_text.delta", { item_id: message!.id, output_index: 1, content_index: 0, delta: SAID }),
    ev("response.output_item.done", { output_index: 1, item: message }),
    ev("response.output_item.added", { output_index: 2, item: { ...call, arguments: "", status: "in_progress" } }),
    ev("response.function_call_arguments.delta", { item_id: call!.id, output_index: 2, delta: call!.arguments }),
    ev("response.output_item.done", { output_index: 2, item: call }),
    ev("response.completed", { response: responsesJson(n) }),
  ];
}

/** The wire's answer for turn n, as the mock behaviour for a JSON or a streamed request. */
export function turnAnswer(wire: Wire, n: number, stream: boolean): Behaviour {
  if (stream)
    return { kind: "sse", chunks: { anthropic: anthropicSse, gemini: geminiSse, openai: openaiSse, responses: responsesSse }[wire](n) };
  const body = { anthropic: anthropicJson, gemini: geminiJson, openai: openaiJson, responses: responsesJson }[wire](n);
  return { kind: "error", status: 200, body };
}
