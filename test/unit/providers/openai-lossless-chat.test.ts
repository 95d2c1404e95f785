// Issue 55 on the OpenAI-compatible chat wire: reasoning (DeepSeek's reasoning_content, OpenRouter's
// reasoning and reasoning_details), annotations and cache usage are read into the chat model, and a
// translated request sends back only the reasoning and cache markers its vendor takes (catalog rows).
import { describe, expect, test } from "bun:test";
import { openAICompatibleAdapter as adapter } from "../../../src/providers/openai-compatible/adapter";
import { openAIChatNativeAdapter } from "../../../src/providers/openai-compatible/native";
import { BUILTIN_PROVIDERS } from "../../../src/catalog/providers";
import { providerFromConfig } from "../../../src/catalog/config-entries";
import type { ChatMessage, ChatRequest, StreamEvent, UpstreamTarget } from "../../../src/providers/types";
import { bytesStream, collect, runStream, target } from "./stream-harness";

const T = target("openai");
const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;
const deltas = (events: StreamEvent[]) => events.filter((e): e is Extract<StreamEvent, { type: "delta" }> => e.type === "delta");
const answer = (message: Record<string, unknown>, usage?: Record<string, unknown>) => ({
  id: "c1",
  object: "chat.completion",
  created: 1,
  model: "m",
  choices: [{ index: 0, message: { role: "assistant", content: "42", ...message }, finish_reason: "stop" }],
  ...(usage ? { usage } : {}),
});

describe("openai-compatible lossless: JSON answers", () => {
  test("DeepSeek's reasoning_content becomes one unknown-format entry and stays as reasoning_content", () => {
    const message = adapter.parseResponse(answer({ reasoning_content: "Think." }), T).choices[0].message;
    expect(message.reasoning_details).toEqual([{ type: "reasoning.text", text: "Think.", format: "unknown" }]);
    expect(message.reasoning_content).toBe("Think.");
  });

  test("OpenRouter's reasoning_details are read entry by entry (signatures kept) and win over its reasoning text", () => {
    const details = [
      { type: "reasoning.text", text: "Claude thinks", signature: "sig1", format: "anthropic-claude-v1", index: 0 },
      { type: "reasoning.encrypted", data: "redacted", format: "anthropic-claude-v1", index: 1 },
    ];
    const message = adapter.parseResponse(answer({ reasoning: "Claude thinks", reasoning_details: details }), T).choices[0].message;
    expect(message.reasoning_details).toEqual([
      { type: "reasoning.text", text: "Claude thinks", signature: "sig1", format: "anthropic-claude-v1" },
      { type: "reasoning.encrypted", data: "redacted", format: "anthropic-claude-v1" },
    ]);
    expect(message.reasoning_content).toBe("Claude thinks");
    expect(adapter.parseResponse(answer({ reasoning: "Only text" }), T).choices[0].message.reasoning_details).toEqual([
      { type: "reasoning.text", text: "Only text", format: "unknown" },
    ]);
  });

  test("annotations stay on the message; an answer without reasoning gets no reasoning fields", () => {
    const annotations = [{ type: "url_citation", url_citation: { url: "https://w.example", title: "W", start_index: 0, end_index: 2 } }];
    const message = adapter.parseResponse(answer({ annotations }), T).choices[0].message;
    expect(message.annotations).toEqual(annotations);
    expect(message).not.toHaveProperty("reasoning_details");
    expect(message).not.toHaveProperty("reasoning_content");
  });

  test("usage: cached tokens, OpenRouter's cache-write tokens and reasoning tokens", () => {
    const usage = {
      prompt_tokens: 1000,
      completion_tokens: 200,
      prompt_tokens_details: { cached_tokens: 600, cache_write_tokens: 300 },
      completion_tokens_details: { reasoning_tokens: 150 },
    };
    expect(adapter.parseResponse(answer({}, usage), T).usage).toEqual({
      inputTokens: 1000,
      outputTokens: 200,
      cachedTokens: 600,
      cacheWriteTokens: 300,
      reasoningTokens: 150,
    });
  });
});

describe("openai-compatible lossless: streams", () => {
  test("a reasoning_content delta also carries its reasoning_details fragment (entry 0)", async () => {
    const events = await runStream("openai", [
      chunk({ role: "assistant", content: "" }),
      chunk({ reasoning_content: "Hm" }),
      "data: [DONE]\n\n",
    ]);
    expect(deltas(events)[1].delta).toEqual({
      extra: { reasoning_content: "Hm", reasoning_details: [{ type: "reasoning.text", format: "unknown", index: 0, text: "Hm" }] },
    });
  });

  test("OpenRouter's reasoning text alone gets reasoning_content too; its own reasoning_details are kept as sent", async () => {
    const sent = [{ type: "reasoning.text", text: "Hm", signature: null, format: "anthropic-claude-v1", index: 0 }];
    const events = await runStream("openai", [
      chunk({ role: "assistant", content: "" }),
      chunk({ reasoning: "Hm" }),
      chunk({ reasoning: "Hm", reasoning_details: sent }),
      "data: [DONE]\n\n",
    ]);
    expect(deltas(events)[1].delta.extra).toEqual({
      reasoning: "Hm",
      reasoning_content: "Hm",
      reasoning_details: [{ type: "reasoning.text", format: "unknown", index: 0, text: "Hm" }],
    });
    expect(deltas(events)[2].delta.extra).toEqual({ reasoning: "Hm", reasoning_details: sent });
  });

  test("a chat client's own stream (the native adapter) keeps the delta's fields exactly as they came", async () => {
    const events = await collect(
      bytesStream([chunk({ role: "assistant", content: "" }), chunk({ reasoning_content: "Hm" }), "data: [DONE]\n\n"]).pipeThrough(
        openAIChatNativeAdapter.streamTransform(T),
      ),
    );
    expect(deltas(events)[1].delta).toEqual({ extra: { reasoning_content: "Hm" } });
  });

  test("annotations in a delta travel in extra", async () => {
    const annotations = [{ type: "url_citation", url_citation: { url: "https://w.example", start_index: 0, end_index: 1 } }];
    const events = await runStream("openai", [chunk({ role: "assistant", content: "" }), chunk({ annotations }), "data: [DONE]\n\n"]);
    expect(deltas(events)[1].delta).toEqual({ extra: { annotations } });
  });
});

const vendor = (id: string): UpstreamTarget => {
  const row = BUILTIN_PROVIDERS.find((p) => p.id === id)!;
  return { ...T, providerId: id, chatReasoning: row.chatReasoning, cacheControl: row.cacheControl };
};
const cache = { type: "ephemeral" };
const assistant: ChatMessage = {
  role: "assistant",
  content: "Checking.",
  reasoning_content: "stale text",
  reasoning_details: [
    { type: "reasoning.text", text: "Claude thinks", signature: "sig1", format: "anthropic-claude-v1" },
    { type: "reasoning.summary", summary: "A summary", id: "rs_1", format: "openai-responses-v1" },
    { type: "reasoning.encrypted", data: "ENC", id: "rs_1", format: "openai-responses-v1" },
  ],
  tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: "{}" } }],
};
const translated: ChatRequest = {
  model: "x",
  messages: [
    { role: "system", content: [{ type: "text", text: "Be brief.", cache_control: cache }] },
    { role: "user", content: [{ type: "text", text: "Hi", cache_control: { type: "ephemeral", ttl: "1h" } }] },
    assistant,
    { role: "tool", tool_call_id: "call_1", content: "ok", cache_control: cache },
  ],
  tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } }, cache_control: cache } as never],
};
const sent = (t: UpstreamTarget) => JSON.parse(adapter.buildRequest(translated, t).body) as ChatRequest;

describe("openai-compatible lossless: what a translated request sends back, by vendor row", () => {
  test("OpenRouter takes reasoning_details (every family, as they are) and every cache_control marker", () => {
    const body = sent(vendor("openrouter"));
    expect(body.messages).toEqual(JSON.parse(JSON.stringify(translated.messages)));
    expect(body.tools).toEqual(JSON.parse(JSON.stringify(translated.tools)));
  });

  test("DeepSeek takes reasoning_content (the entries' text) and no cache markers", () => {
    const body = sent(vendor("deepseek"));
    expect(body.messages[2]).toEqual({
      role: "assistant",
      content: "Checking.",
      reasoning_content: "Claude thinks\n\nA summary",
      tool_calls: assistant.tool_calls,
    });
    expect(body.messages[0]).toEqual({ role: "system", content: [{ type: "text", text: "Be brief." }] });
    expect(body.messages[1]).toEqual({ role: "user", content: [{ type: "text", text: "Hi" }] });
    expect(body.messages[3]).toEqual({ role: "tool", tool_call_id: "call_1", content: "ok" });
    expect(body.tools).toEqual([{ type: "function", function: { name: "f", parameters: { type: "object" } } }]);
  });

  test("a vendor with neither field (OpenAI) gets no reasoning fields and no cache markers", () => {
    const body = sent(vendor("openai"));
    expect(body.messages[2]).toEqual({ role: "assistant", content: "Checking.", tool_calls: assistant.tool_calls });
    expect(JSON.stringify(body)).not.toContain("cache_control");
    expect(JSON.stringify(body)).not.toContain("reasoning");
  });

  test("a request with nothing to shape is sent as it is; the client's messages are never changed", () => {
    const plain: ChatRequest = { model: "x", messages: [{ role: "user", content: "Hi" }] };
    expect(JSON.parse(adapter.buildRequest(plain, vendor("openai")).body).messages).toEqual(plain.messages);
    const before = JSON.stringify(translated);
    sent(vendor("openai"));
    expect(JSON.stringify(translated)).toBe(before);
  });

  test("a chat client's own body on a chat route goes as sent, reasoning and markers included", () => {
    const built = openAIChatNativeAdapter.buildNative({ wire: "chat", body: translated as never, headers: {} }, vendor("openai"), false);
    expect(JSON.parse(built.body).messages).toEqual(JSON.parse(JSON.stringify(translated.messages)));
  });

  test("the rows: OpenRouter and DeepSeek say what they take; a config row over a built-in keeps its quirks", () => {
    const byId = new Map(BUILTIN_PROVIDERS.map((p) => [p.id, p]));
    expect(byId.get("openrouter")).toMatchObject({ chatReasoning: "reasoning_details", cacheControl: true });
    expect(byId.get("deepseek")).toMatchObject({ chatReasoning: "reasoning_content" });
    expect(byId.get("deepseek")!.cacheControl).toBeUndefined();
    expect(byId.get("openai")!.chatReasoning).toBeUndefined();
    const over = providerFromConfig("openrouter", { adapter: "openai", base_url: "http://127.0.0.1:9/v1" }, byId.get("openrouter"), {});
    expect(over).toMatchObject({ chatReasoning: "reasoning_details", cacheControl: true });
    const custom = providerFromConfig("acme", { adapter: "openai", base_url: "http://127.0.0.1:9/v1" }, undefined, {});
    expect(custom.chatReasoning).toBeUndefined();
    expect(custom.cacheControl).toBeUndefined();
    // A config row says it for a vendor the catalog does not know (a LiteLLM proxy, a self-hosted router), or turns it off.
    const told = providerFromConfig(
      "proxy",
      { adapter: "openai", base_url: "http://127.0.0.1:9/v1", chat_reasoning: "reasoning_content", cache_control: true },
      undefined,
      {},
    );
    expect(told).toMatchObject({ chatReasoning: "reasoning_content", cacheControl: true });
    const off = providerFromConfig(
      "openrouter",
      { adapter: "openai", chat_reasoning: "none", cache_control: false },
      byId.get("openrouter"),
      {},
    );
    expect(off.chatReasoning).toBeUndefined();
    expect(off.cacheControl).toBeUndefined();
  });
});
