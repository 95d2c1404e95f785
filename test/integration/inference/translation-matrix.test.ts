// Issue 55's matrix: each client dialect (chat completions, Responses, Messages) × each upstream wire
// (OpenAI chat, OpenAI Responses, Anthropic Messages, Gemini), streamed and not. The upstream thinks with a signature, says
// a line, calls a tool and reports cache usage; the client must get all of it in its own dialect's fields,
// and a conversation continued for three turns must bring each turn's signature back to the provider
// exactly where it came from (pairs where the client speaks the route's own wire pass through natively).
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { startGateway, type TestGateway } from "../../support/gateway";
import type { RecordedRequest } from "../../support/mock-upstream";
import {
  SAID,
  THOUGHT,
  TOOL,
  anthropicSig,
  callId,
  encryptedContent,
  geminiCallSig,
  reasoningItemId,
  geminiThoughtSig,
  turnAnswer,
  type Wire,
} from "../../support/translation-fixtures";
import { mergeFragment, type ReasoningDetail, type ReasoningFragment } from "../../../src/providers/reasoning";

type Dialect = "chat" | "responses" | "messages";
type Json = Record<string, any>;

let g: TestGateway;
beforeAll(async () => {
  g = await startGateway();
});
afterAll(() => g.stop());
beforeEach(() => g.mock.reset());

const ROUTES: Record<Wire, { model: string; provider: string }> = {
  openai: { model: "acme/openai-only", provider: "alpha" },
  // Offered only on OpenAI's Responses API: chat and Messages clients reach it translated to that wire.
  responses: { model: "acme/responses-only", provider: "alpha" },
  anthropic: { model: "acme/anthropic-only", provider: "beta" },
  gemini: { model: "acme/gemini-only", provider: "gamma" },
};
const PARAMS = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };

/** What a client got, read from its dialect's own fields. */
interface Answer {
  text: string;
  reasoning: string;
  call: { id: string; name: string; args: unknown };
  cached: number;
  cacheWrite: number;
  /** The conversation to send next: the answer and the tool's result appended. */
  next: unknown[];
  warnings: { code: string }[];
}

function sseEvents(text: string): { event: string | null; data: Json }[] {
  const out: { event: string | null; data: Json }[] = [];
  for (const block of text.split("\n\n")) {
    const event = /^event: (.*)$/m.exec(block)?.[1] ?? null;
    const data = /^data: (.*)$/m.exec(block)?.[1];
    if (data && data !== "[DONE]") out.push({ event, data: JSON.parse(data) });
  }
  return out;
}

async function post(path: string, body: Json): Promise<{ json?: Json; sse?: ReturnType<typeof sseEvents> }> {
  const res = await fetch(`${g.s.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${g.s.adminKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${text}`);
  return body.stream ? { sse: sseEvents(text) } : { json: JSON.parse(text) };
}

async function chatTurn(model: string, history: unknown[], stream: boolean): Promise<Answer> {
  const tools = [{ type: "function", function: { name: TOOL.name, parameters: PARAMS } }];
  const r = await post("/v1/chat/completions", { model, messages: history, tools, stream });
  let message: Json;
  let usage: Json;
  let routing: Json;
  if (r.json) {
    message = r.json.choices[0].message;
    usage = r.json.usage;
    routing = r.json.routing_metadata;
  } else {
    const details: ReasoningDetail[] = [];
    const calls: Json[] = [];
    message = { role: "assistant", content: "", reasoning_content: "" };
    usage = {};
    routing = {};
    for (const { data } of r.sse!) {
      if (data.usage) usage = data.usage;
      if (data.routing_metadata) routing = data.routing_metadata;
      const delta = data.choices?.[0]?.delta;
      if (!delta) continue;
      if (delta.content) message.content += delta.content;
      if (delta.reasoning_content) message.reasoning_content += delta.reasoning_content;
      for (const f of (delta.reasoning_details ?? []) as ReasoningFragment[]) mergeFragment(details, f);
      for (const c of delta.tool_calls ?? []) {
        const call = (calls[c.index] ??= { id: "", type: "function", function: { name: "", arguments: "" } });
        if (c.id) call.id = c.id;
        if (c.function?.name) call.function.name += c.function.name;
        if (c.function?.arguments) call.function.arguments += c.function.arguments;
      }
    }
    message.tool_calls = calls;
    if (details.length > 0) message.reasoning_details = details;
  }
  const call = message.tool_calls[0];
  const assistant: Json = { role: "assistant", content: message.content, tool_calls: message.tool_calls };
  if (message.reasoning_details) assistant.reasoning_details = message.reasoning_details;
  return {
    text: message.content,
    reasoning: message.reasoning_content ?? "",
    call: { id: call.id, name: call.function.name, args: JSON.parse(call.function.arguments) },
    cached: usage.prompt_tokens_details?.cached_tokens ?? 0,
    cacheWrite: usage.prompt_tokens_details?.cache_write_tokens ?? 0,
    next: [...history, assistant, { role: "tool", tool_call_id: call.id, content: "a.txt" }],
    warnings: routing.warnings ?? [],
  };
}

async function messagesTurn(model: string, history: unknown[], stream: boolean): Promise<Answer> {
  const tools = [{ name: TOOL.name, input_schema: PARAMS }];
  const r = await post("/v1/messages", { model, max_tokens: 1000, messages: history, tools, stream });
  let content: Json[];
  let usage: Json;
  let routing: Json;
  if (r.json) {
    content = r.json.content;
    usage = r.json.usage;
    routing = r.json.routing_metadata;
  } else {
    content = [];
    usage = {};
    routing = {};
    const json: string[] = [];
    for (const { data } of r.sse!) {
      if (data.type === "content_block_start") content[data.index] = { ...data.content_block };
      if (data.type === "content_block_delta") {
        const block = content[data.index]!;
        const d = data.delta;
        if (d.type === "text_delta") block.text += d.text;
        if (d.type === "thinking_delta") block.thinking += d.thinking;
        if (d.type === "signature_delta") block.signature = d.signature;
        if (d.type === "input_json_delta") json[data.index] = (json[data.index] ?? "") + d.partial_json;
      }
      if (data.type === "content_block_stop" && json[data.index] !== undefined) content[data.index]!.input = JSON.parse(json[data.index]!);
      // As the Anthropic SDK does: message_start's usage, updated by message_delta's (cumulative) fields.
      if (data.type === "message_start") usage = { ...data.message.usage };
      if (data.type === "message_delta") {
        usage = { ...usage, ...data.usage };
        routing = data.routing_metadata ?? {};
      }
    }
  }
  const use = content.find((b) => b.type === "tool_use")!;
  return {
    text: content
      .filter((b) => b.type === "text")
      .map((b) => b.text)
      .join(""),
    reasoning: content
      .filter((b) => b.type === "thinking")
      .map((b) => b.thinking)
      .join(""),
    call: { id: use.id, name: use.name, args: use.input },
    cached: usage.cache_read_input_tokens ?? 0,
    cacheWrite: usage.cache_creation_input_tokens ?? 0,
    next: [
      ...history,
      { role: "assistant", content },
      { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "a.txt" }] },
    ],
    warnings: routing?.warnings ?? [],
  };
}

async function responsesTurn(model: string, history: unknown[], stream: boolean): Promise<Answer> {
  const tools = [{ type: "function", name: TOOL.name, parameters: PARAMS, strict: false }];
  const body = { model, input: history, tools, stream, store: false, include: ["reasoning.encrypted_content"] };
  const r = await post("/v1/responses", body);
  const response = r.json ?? r.sse!.find((e) => e.data.type === "response.completed")!.data.response;
  const output: Json[] = response.output;
  const call = output.find((i) => i.type === "function_call")!;
  const summary = output.filter((i) => i.type === "reasoning").flatMap((i) => (i.summary ?? []).map((s: Json) => s.text));
  return {
    text: output
      .filter((i) => i.type === "message")
      .flatMap((i) => i.content.map((p: Json) => p.text ?? ""))
      .join(""),
    reasoning: summary.join(""),
    call: { id: call.call_id, name: call.name, args: JSON.parse(call.arguments) },
    cached: response.usage.input_tokens_details?.cached_tokens ?? 0,
    cacheWrite: response.usage.input_tokens_details?.cache_write_tokens ?? 0,
    next: [...history, ...output, { type: "function_call_output", call_id: call.call_id, output: "a.txt" }],
    warnings: response.routing_metadata?.warnings ?? [],
  };
}

const TURN: Record<Dialect, (model: string, history: unknown[], stream: boolean) => Promise<Answer>> = {
  chat: chatTurn,
  messages: messagesTurn,
  responses: responsesTurn,
};

const FIRST: Record<Dialect, unknown[]> = {
  chat: [{ role: "user", content: "list the files" }],
  messages: [{ role: "user", content: "list the files" }],
  responses: [{ role: "user", content: "list the files" }],
};

/** The assistant turns of an upstream request, as that wire writes them (on the Responses wire: each reasoning item and what follows it). */
function assistantTurns(wire: Wire, req: RecordedRequest): Json[] {
  const body = req.body as Json;
  if (wire === "responses") {
    const input = body.input as Json[];
    return input.flatMap((item, i) => (item.type === "reasoning" ? [{ reasoning: item, next: input[i + 1] }] : []));
  }
  if (wire === "anthropic") return body.messages.filter((m: Json) => m.role === "assistant");
  if (wire === "gemini") return body.contents.filter((c: Json) => c.role === "model");
  return body.messages.filter((m: Json) => m.role === "assistant");
}

/** Turn n's reasoning came back to the provider exactly: the signature where that wire keeps it. */
function expectSignatureBack(wire: Wire, turn: Json, n: number): void {
  if (wire === "anthropic") {
    expect(turn.content[0]).toEqual({ type: "thinking", thinking: THOUGHT, signature: anthropicSig(n) });
    expect(turn.content.at(-1)).toMatchObject({ type: "tool_use", id: callId("anthropic", n), name: TOOL.name, input: TOOL.args });
  } else if (wire === "gemini") {
    expect(turn.parts).toContainEqual({ text: THOUGHT, thought: true, thoughtSignature: geminiThoughtSig(n) });
    const call = turn.parts.find((p: Json) => p.functionCall);
    expect(call.functionCall).toMatchObject({ name: TOOL.name, args: TOOL.args });
    expect(call.thoughtSignature).toBe(geminiCallSig(n));
  } else if (wire === "responses") {
    expect(turn.reasoning).toMatchObject({
      id: reasoningItemId(n),
      summary: [{ type: "summary_text", text: THOUGHT }],
      encrypted_content: encryptedContent(n),
    });
    // The item goes back where it was: before the turn's output that followed it.
    expect(["message", "function_call"]).toContain(turn.next.type ?? "message");
    const calls = turn.next.type === "function_call" ? turn.next : null;
    if (calls) expect(calls.call_id).toBe(callId("responses", n));
  } else {
    expect(turn.tool_calls[0].id).toBe(callId("openai", n));
  }
}

const WIRES: Wire[] = ["openai", "responses", "anthropic", "gemini"];
const DIALECTS: Dialect[] = ["chat", "responses", "messages"];

describe("translation matrix: every dialect × every wire keeps reasoning, tools and cache usage", () => {
  for (const dialect of DIALECTS) {
    for (const wire of WIRES) {
      for (const stream of [false, true]) {
        test(`${dialect} → ${wire}${stream ? " (streamed)" : ""}: three turns, each signature back where it came from`, async () => {
          const { model, provider } = ROUTES[wire];
          let history = FIRST[dialect];
          for (let n = 1; n <= 3; n++) {
            g.mock.setScript({ provider, stream, route: wire === "responses" ? "responses" : "chat" }, turnAnswer(wire, n, stream));
            const answer = await TURN[dialect](model, history, stream);
            expect(answer.text).toBe(SAID);
            expect(answer.reasoning).toBe(THOUGHT);
            expect(answer.call).toEqual({ id: callId(wire, n), name: TOOL.name, args: TOOL.args });
            expect(answer.cached).toBe(50);
            if (wire === "anthropic") expect(answer.cacheWrite).toBe(30);
            const sent = g.mock.requests
              .filter((r) => r.provider === provider && (r.route === "responses") === (wire === "responses"))
              .at(-1)!;
            const turns = assistantTurns(wire, sent);
            expect(turns).toHaveLength(n - 1);
            turns.forEach((turn, i) => expectSignatureBack(wire, turn, i + 1));
            history = answer.next;
          }
        });
      }
    }
  }
});
