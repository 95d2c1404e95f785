// Issue 55 beyond the reasoning matrix: citations reach every dialect, cache markers reach Anthropic from
// any dialect and nowhere else, effort means the same thinking on every wire, a conversation that changes
// provider family drops only the other family's private state, and what cannot be carried is said.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { startGateway, type TestGateway } from "../../support/gateway";
import type { Behaviour } from "../../support/mock-upstream";
import { encodeCarried } from "../../../src/providers/reasoning";

type Json = Record<string, any>;

let g: TestGateway;
beforeAll(async () => {
  g = await startGateway();
});
afterAll(() => g.stop());
beforeEach(() => g.mock.reset());

const sse = (data: unknown, event?: string) => `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`;

async function call(path: string, body: Json): Promise<{ status: number; json: Json | null; text: string }> {
  const res = await fetch(`${g.s.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${g.s.adminKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: body.stream ? null : JSON.parse(text), text };
}

const lastBody = (provider: string): Json => g.mock.requests.filter((r) => r.provider === provider).at(-1)!.body as Json;
const events = (text: string) =>
  text
    .split("\n\n")
    .map((b) => /^data: (.*)$/m.exec(b)?.[1])
    .filter((d): d is string => d !== undefined && d !== "[DONE]")
    .map((d) => JSON.parse(d) as Json);

const ANSWER = "Oslo is cold.";
const SOURCE = { url: "https://met.no/oslo", title: "MET Norway" };

const geminiCited = (stream: boolean): Behaviour => {
  const body = {
    candidates: [
      {
        content: { role: "model", parts: [{ text: ANSWER }] },
        finishReason: "STOP",
        index: 0,
        groundingMetadata: {
          groundingChunks: [{ web: { uri: SOURCE.url, title: SOURCE.title } }],
          groundingSupports: [{ segment: { startIndex: 0, endIndex: ANSWER.length, text: ANSWER }, groundingChunkIndices: [0] }],
        },
      },
    ],
    usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 4, totalTokenCount: 9 },
    modelVersion: "gemini-solo",
  };
  return stream ? { kind: "sse", chunks: [sse(body)] } : { kind: "error", status: 200, body };
};

const anthropicCited = (stream: boolean): Behaviour => {
  const citation = {
    type: "web_search_result_location",
    url: SOURCE.url,
    title: SOURCE.title,
    cited_text: ANSWER,
    encrypted_index: "Eo8BCioIAhgB",
  };
  const usage = { input_tokens: 5, output_tokens: 4 };
  if (!stream)
    return {
      kind: "error",
      status: 200,
      body: {
        id: "msg_c",
        type: "message",
        role: "assistant",
        model: "claude-solo",
        content: [{ type: "text", text: ANSWER, citations: [citation] }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage,
      },
    };
  return {
    kind: "sse",
    chunks: [
      sse(
        { type: "message_start", message: { id: "msg_c", type: "message", role: "assistant", model: "claude-solo", content: [], usage } },
        "message_start",
      ),
      sse({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, "content_block_start"),
      sse({ type: "content_block_delta", index: 0, delta: { type: "citations_delta", citation } }, "content_block_delta"),
      sse({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: ANSWER } }, "content_block_delta"),
      sse({ type: "content_block_stop", index: 0 }, "content_block_stop"),
      sse({ type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 4 } }, "message_delta"),
      sse({ type: "message_stop" }, "message_stop"),
    ],
  };
};

/** The citation each dialect shows, read from its JSON answer or its stream. */
async function citedUrl(dialect: "chat" | "responses" | "messages", model: string, stream: boolean): Promise<unknown> {
  const input = [{ role: "user", content: "weather in Oslo?" }];
  if (dialect === "chat") {
    const r = await call("/v1/chat/completions", { model, messages: input, stream });
    if (!stream) return r.json!.choices[0].message.annotations?.[0]?.url_citation?.url;
    const found = events(r.text).flatMap((e) => e.choices?.[0]?.delta?.annotations ?? []);
    return found[0]?.url_citation?.url;
  }
  if (dialect === "responses") {
    const r = await call("/v1/responses", { model, input, stream });
    const response = stream ? events(r.text).find((e) => e.type === "response.completed")!.response : r.json!;
    const message = response.output.find((i: Json) => i.type === "message");
    const annotation = message.content[0].annotations[0];
    expect(annotation).toMatchObject({
      type: "url_citation",
      url: SOURCE.url,
      title: SOURCE.title,
      start_index: 0,
      end_index: ANSWER.length,
    });
    return annotation.url;
  }
  const r = await call("/v1/messages", { model, max_tokens: 100, messages: input, stream });
  if (!stream) return r.json!.content[0].citations?.[0]?.url;
  const delta = events(r.text).find((e) => e.type === "content_block_delta" && e.delta.type === "citations_delta");
  return delta?.delta.citation.url;
}

describe("citations reach every dialect", () => {
  for (const stream of [false, true]) {
    for (const dialect of ["chat", "responses", "messages"] as const) {
      test(`Gemini grounding → ${dialect}${stream ? " (streamed)" : ""}`, async () => {
        g.mock.setScript({ provider: "gamma" }, geminiCited(stream));
        expect(await citedUrl(dialect, "acme/gemini-only", stream)).toBe(SOURCE.url);
      });
    }
    for (const dialect of ["chat", "responses"] as const) {
      test(`Anthropic web search citations → ${dialect}${stream ? " (streamed)" : ""}`, async () => {
        g.mock.setScript({ provider: "beta" }, anthropicCited(stream));
        expect(await citedUrl(dialect, "acme/anthropic-only", stream)).toBe(SOURCE.url);
      });
    }
  }
});

describe("cache markers reach Anthropic from any dialect, and only Anthropic", () => {
  const marker = { type: "ephemeral" };
  const chatBody = (model: string) => ({
    model,
    messages: [
      { role: "system", content: [{ type: "text", text: "You are terse.", cache_control: marker }] },
      { role: "user", content: [{ type: "text", text: "Long document…", cache_control: { type: "ephemeral", ttl: "1h" } }] },
    ],
    tools: [{ type: "function", function: { name: "ls", parameters: { type: "object", properties: {} } }, cache_control: marker }],
  });

  test("chat → Anthropic: the system prompt stays blocks with their markers; user blocks and tools keep theirs", async () => {
    expect((await call("/v1/chat/completions", chatBody("acme/anthropic-only"))).status).toBe(200);
    const body = lastBody("beta");
    expect(body.system).toEqual([{ type: "text", text: "You are terse.", cache_control: marker }]);
    expect(body.messages[0].content[0]).toEqual({ type: "text", text: "Long document…", cache_control: { type: "ephemeral", ttl: "1h" } });
    expect(body.tools[0].cache_control).toEqual(marker);
  });

  test("chat → Gemini and Messages → OpenAI chat / Gemini: no marker reaches a wire that caches by prefix", async () => {
    expect((await call("/v1/chat/completions", chatBody("acme/gemini-only"))).status).toBe(200);
    expect(JSON.stringify(lastBody("gamma"))).not.toContain("cache_control");
    const messages = {
      max_tokens: 50,
      system: [{ type: "text", text: "You are terse.", cache_control: marker }],
      messages: [{ role: "user", content: [{ type: "text", text: "hi", cache_control: marker }] }],
    };
    for (const [model, provider] of [
      ["acme/openai-only", "alpha"],
      ["acme/gemini-only", "gamma"],
    ]) {
      const r = await call("/v1/messages", { model, ...messages });
      expect(r.status).toBe(200);
      expect(JSON.stringify(lastBody(provider!))).not.toContain("cache_control");
      expect(r.json!.routing_metadata.warnings ?? []).toEqual([]);
    }
  });

  test("Responses prompt_cache_key reaches an OpenAI chat route", async () => {
    const r = await call("/v1/responses", { model: "acme/openai-only", input: "hi", prompt_cache_key: "tenant-7" });
    expect(r.status).toBe(200);
    expect(lastBody("alpha").prompt_cache_key).toBe("tenant-7");
  });
});

describe("effort means the same thinking on every wire", () => {
  test("Messages thinking budget → Gemini's exact budget, thoughts included", async () => {
    const body = {
      model: "acme/gemini-only",
      max_tokens: 2000,
      thinking: { type: "enabled", budget_tokens: 5000 },
      messages: [{ role: "user", content: "hi" }],
    };
    expect((await call("/v1/messages", body)).status).toBe(200);
    expect(lastBody("gamma").generationConfig.thinkingConfig).toEqual({ thinkingBudget: 5000, includeThoughts: true });
  });

  test("Messages adaptive thinking with output_config.effort → chat reasoning_effort", async () => {
    const body = {
      model: "acme/openai-only",
      max_tokens: 2000,
      thinking: { type: "adaptive" },
      output_config: { effort: "low" },
      messages: [{ role: "user", content: "hi" }],
    };
    expect((await call("/v1/messages", body)).status).toBe(200);
    expect(lastBody("alpha").reasoning_effort).toBe("low");
  });

  test("Responses reasoning.effort → Anthropic thinking, with max_tokens room for it", async () => {
    const r = await call("/v1/responses", {
      model: "acme/anthropic-only",
      input: "hi",
      max_output_tokens: 500,
      reasoning: { effort: "low" },
    });
    expect(r.status).toBe(200);
    const body = lastBody("beta");
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
    expect(body.max_tokens).toBeGreaterThan(1024);
  });
});

describe("a conversation that changes provider family keeps what it can", () => {
  const gemini = [{ type: "reasoning.text", text: "Gemini thought", signature: "R2Vt", format: "google-gemini-v1" } as const];
  const messagesHistory = (thinking: boolean) => ({
    model: "acme/anthropic-only",
    max_tokens: 3000,
    ...(thinking ? { thinking: { type: "enabled", budget_tokens: 1024 } } : {}),
    messages: [
      { role: "user", content: "list files" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Gemini thought", signature: encodeCarried(gemini) },
          { type: "tool_use", id: "call_g1", name: "ls", input: {} },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "call_g1", content: "a.txt" }] },
    ],
    tools: [{ name: "ls", input_schema: { type: "object", properties: {} } }],
  });

  test("Messages begun on Gemini, continued on Anthropic (native): the Gemini thinking is cut; thinking left off, said", async () => {
    const plain = await call("/v1/messages", messagesHistory(false));
    expect(plain.status).toBe(200);
    expect(lastBody("beta").messages[1].content).toEqual([{ type: "tool_use", id: "call_g1", name: "ls", input: {} }]);
    expect(plain.json!.routing_metadata.warnings ?? []).toEqual([]);

    const thinking = await call("/v1/messages", messagesHistory(true));
    expect(thinking.status).toBe(200);
    expect(lastBody("beta").thinking).toBeUndefined();
    expect(thinking.json!.routing_metadata.warnings.map((w: Json) => w.code)).toContain("thinking");
  });

  test("Responses begun on Gemini, continued on OpenAI's Responses API (native): the carried item is cut", async () => {
    const input = [
      { role: "user", content: "list files" },
      {
        type: "reasoning",
        id: "rs_carried",
        summary: [{ type: "summary_text", text: "Gemini thought" }],
        encrypted_content: encodeCarried(gemini),
      },
      { type: "function_call", call_id: "call_g1", name: "ls", arguments: "{}" },
      { type: "function_call_output", call_id: "call_g1", output: "a.txt" },
    ];
    expect((await call("/v1/responses", { model: "acme/dual", input })).status).toBe(200);
    const sent = lastBody("delta").input as Json[];
    expect(sent.map((i) => i.type ?? "message")).toEqual(["message", "function_call", "function_call_output"]);
  });

  test("chat begun on Gemini, continued on Anthropic (translated): Gemini's entries are not sent", async () => {
    const r = await call("/v1/chat/completions", {
      model: "acme/anthropic-only",
      messages: [
        { role: "user", content: "list files" },
        {
          role: "assistant",
          content: null,
          reasoning_details: gemini,
          tool_calls: [{ id: "call_g1", type: "function", function: { name: "ls", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "call_g1", content: "a.txt" },
      ],
      tools: [{ type: "function", function: { name: "ls", parameters: { type: "object", properties: {} } } }],
    });
    expect(r.status).toBe(200);
    const body = lastBody("beta");
    expect(JSON.stringify(body)).not.toContain("Gemini thought");
    expect(body.messages[1].content).toEqual([{ type: "tool_use", id: "call_g1", name: "ls", input: {} }]);
  });
});

describe("what cannot be carried is said, and never claimed", () => {
  test("a hosted tool toward Anthropic: warned, and the response's tools list only what was sent", async () => {
    const r = await call("/v1/responses", {
      model: "acme/anthropic-only",
      input: "hi",
      tools: [{ type: "web_search" }, { type: "function", name: "ls", parameters: { type: "object", properties: {} } }],
    });
    expect(r.status).toBe(200);
    expect(r.json!.tools.map((t: Json) => t.type)).toEqual(["function"]);
    expect(r.json!.routing_metadata.warnings.map((w: Json) => w.code)).toContain("tools[0]");
    expect(lastBody("beta").tools.map((t: Json) => t.name)).toEqual(["ls"]);
  });

  test("n > 1 toward Anthropic is dropped with a warning", async () => {
    const r = await call("/v1/chat/completions", { model: "acme/anthropic-only", n: 2, messages: [{ role: "user", content: "hi" }] });
    expect(r.status).toBe(200);
    expect(r.json!.routing_metadata.warnings.map((w: Json) => w.code)).toContain("n");
  });
});
