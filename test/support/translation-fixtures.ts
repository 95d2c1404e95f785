// Upstream answers in each wire's real format for the translation matrix (issue 55): a turn that thinks
// (with the provider's signature), says a line, calls a tool, and reports cache usage; JSON and SSE.
// Turn `n` gets its own signatures and call ids, so a multi-turn test can tell them apart.
import type { Behaviour } from "./mock-upstream";

export type Wire = "openai" | "anthropic" | "gemini";

export const THOUGHT = "I should list the files.";
export const SAID = "Listing.";
export const TOOL = { name: "ls", args: { path: "." } };

export const anthropicSig = (n: number) => `EqAnthSig${n}==`;
export const geminiThoughtSig = (n: number) => `R2VtVGhvdWdodA${n}==`;
export const geminiCallSig = (n: number) => `R2VtRm5TaWc${n}==`;
export const callId = (wire: Wire, n: number) =>
  wire === "anthropic" ? `toolu_${n}` : wire === "gemini" ? `call_gem_${n}` : `call_oa_${n}`;

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

/** The wire's answer for turn n, as the mock behaviour for a JSON or a streamed request. */
export function turnAnswer(wire: Wire, n: number, stream: boolean): Behaviour {
  if (stream) return { kind: "sse", chunks: wire === "anthropic" ? anthropicSse(n) : wire === "gemini" ? geminiSse(n) : openaiSse(n) };
  const body = wire === "anthropic" ? anthropicJson(n) : wire === "gemini" ? geminiJson(n) : openaiJson(n);
  return { kind: "error", status: 200, body };
}
