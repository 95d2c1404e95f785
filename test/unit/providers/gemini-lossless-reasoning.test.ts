// Gemini thoughts and thought signatures through the chat model and back (issue 55, conventions 1–4):
// parsed from JSON answers and streams into reasoning_details, rebuilt on the parts they came on.
import { describe, expect, test } from "bun:test";
import { geminiAdapter as adapter } from "../../../src/providers/gemini/adapter";
import { fragmentsOf, mergeFragment, readDetails, type ReasoningDetail } from "../../../src/providers/reasoning";
import type { ChatMessage, ChatRequest, ChatResult, StreamEvent } from "../../../src/providers/types";
import { frameSse } from "../../support/mock-upstream-wire";
import { assemble, runStream, target } from "./stream-harness";

const G = "google-gemini-v1";
const gemini3 = target("gemini", { providerModelId: "gemini-3-pro-preview" });

function answer(parts: unknown[], responseId = "resp1", finished = true) {
  return {
    candidates: [{ content: { role: "model", parts }, index: 0, ...(finished ? { finishReason: "STOP" } : {}) }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, thoughtsTokenCount: 7, totalTokenCount: 22 },
    modelVersion: "gemini-3-pro-preview",
    responseId,
  };
}

/** A stream of one candidate: each entry is one chunk's parts; the last chunk finishes it. */
function sse(chunks: unknown[][], responseId = "resp1"): string[] {
  return chunks.map((parts, i) => frameSse("gemini", JSON.stringify(answer(parts, responseId, i === chunks.length - 1))));
}

function body(req: Partial<ChatRequest>, t = gemini3) {
  return JSON.parse(adapter.buildRequest({ model: "m", messages: [], ...req }, t).body);
}

/** What a chat client sends back: the answer's message as JSON, read the way the chat ingress reads it. */
function asHistory(message: ChatResult["choices"][number]["message"]): ChatMessage {
  const wire = JSON.parse(JSON.stringify(message));
  return { role: "assistant", content: wire.content, tool_calls: wire.tool_calls, reasoning_details: readDetails(wire.reasoning_details) };
}

/** A streamed answer put together the way a chat client does (reasoning fragments merged by index). */
function assembleMessage(events: StreamEvent[]): ChatMessage & { reasoning_content: string; annotations: unknown[] } {
  const out = assemble(events);
  const details: ReasoningDetail[] = [];
  let reasoning = "";
  const annotations: unknown[] = [];
  for (const e of events) {
    if (e.type !== "delta") continue;
    for (const f of fragmentsOf(e.delta.extra)) mergeFragment(details, f);
    if (typeof e.delta.extra?.reasoning_content === "string") reasoning += e.delta.extra.reasoning_content;
    if (Array.isArray(e.delta.extra?.annotations)) annotations.push(...e.delta.extra.annotations);
  }
  return {
    role: "assistant",
    content: out.content === "" ? null : out.content,
    tool_calls: out.tools.map((t) => ({ id: t.id!, type: "function" as const, function: { name: t.name!, arguments: t.arguments } })),
    reasoning_details: details,
    reasoning_content: reasoning,
    annotations,
  };
}

describe("gemini reasoning: JSON answers", () => {
  test("thought parts become reasoning.text entries, signatures on calls and text become reasoning.encrypted entries", () => {
    const result = adapter.parseResponse(
      answer([
        { text: "Weighing the cities.", thought: true, thoughtSignature: "sigT" },
        { text: "Checking both.", thoughtSignature: "sigA" },
        { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: "sigC" },
        { functionCall: { name: "get_weather", args: { city: "Oslo" } } },
      ]),
      gemini3,
    );
    const message = result.choices[0]!.message;
    expect(message.content).toBe("Checking both.");
    expect(message.tool_calls?.map((c) => c.id)).toEqual(["call_resp1_0", "call_resp1_1"]);
    expect(message.reasoning_details).toEqual([
      { type: "reasoning.text", text: "Weighing the cities.", signature: "sigT", format: G },
      { type: "reasoning.encrypted", data: "sigA", format: G },
      { type: "reasoning.encrypted", data: "sigC", id: "call_resp1_0", format: G },
    ]);
    expect(message.reasoning_content).toBe("Weighing the cities.");
    expect(result.usage).toEqual({ inputTokens: 10, outputTokens: 12, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 7 });
  });

  test("an answer without thoughts or signatures has no reasoning fields", () => {
    const message = adapter.parseResponse(answer([{ text: "Hi" }]), gemini3).choices[0]!.message;
    expect(message).toEqual({ role: "assistant", content: "Hi", refusal: null });
  });

  test("a signature on an empty closing part after unsigned calls belongs to the first call", () => {
    const message = adapter.parseResponse(
      answer([{ functionCall: { name: "now", args: {} } }, { text: "", thoughtSignature: "sigLate" }]),
      gemini3,
    ).choices[0]!.message;
    expect(message.reasoning_details).toEqual([{ type: "reasoning.encrypted", data: "sigLate", id: "call_resp1_0", format: G }]);
  });
});

describe("gemini reasoning: streams", () => {
  test("thought text streams as fragments with reasoning_content; its signature, in a later chunk, as its own fragment", async () => {
    const events = await runStream(
      "gemini",
      sse([
        [{ text: "Let me ", thought: true }],
        [{ text: "think.", thought: true }],
        [{ text: "", thought: true, thoughtSignature: "sigT" }],
        [{ text: "Done" }],
        [{ text: "", thoughtSignature: "sigEnd" }],
      ]),
      gemini3,
    );
    const deltas = events.flatMap((e) => (e.type === "delta" && e.delta.extra ? [e.delta.extra] : []));
    expect(deltas).toEqual([
      { reasoning_details: [{ type: "reasoning.text", format: G, index: 0, text: "Let me " }], reasoning_content: "Let me " },
      { reasoning_details: [{ type: "reasoning.text", format: G, index: 0, text: "think." }], reasoning_content: "think." },
      { reasoning_details: [{ type: "reasoning.text", format: G, index: 0, signature: "sigT" }] },
      { reasoning_details: [{ type: "reasoning.encrypted", format: G, index: 1, data: "sigEnd" }] },
    ]);
    const message = assembleMessage(events);
    expect(message.content).toBe("Done");
    expect(message.reasoning_content).toBe("Let me think.");
    expect(message.reasoning_details).toEqual([
      { type: "reasoning.text", text: "Let me think.", signature: "sigT", format: G },
      { type: "reasoning.encrypted", data: "sigEnd", format: G },
    ]);
  });

  test("a call's signature comes just before its tool call, with the call's id; a late one on an empty part goes to the first call", async () => {
    const signed = assembleMessage(
      await runStream(
        "gemini",
        sse([[{ functionCall: { name: "a", args: {} }, thoughtSignature: "sigA" }, { functionCall: { name: "b", args: {} } }]]),
        gemini3,
      ),
    );
    expect(signed.reasoning_details).toEqual([{ type: "reasoning.encrypted", data: "sigA", id: "call_resp1_0", format: G }]);
    const late = assembleMessage(
      await runStream("gemini", sse([[{ functionCall: { name: "a", args: {} } }], [{ text: "", thoughtSignature: "sigL" }]]), gemini3),
    );
    expect(late.tool_calls?.map((c) => c.id)).toEqual(["call_resp1_0"]);
    expect(late.reasoning_details).toEqual([{ type: "reasoning.encrypted", data: "sigL", id: "call_resp1_0", format: G }]);
  });

  test("the JSON and streamed readings of the same answer agree", async () => {
    const parts = [
      { text: "Plan.", thought: true, thoughtSignature: "sigT" },
      { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: "sigC" },
    ];
    const json = adapter.parseResponse(answer(parts), gemini3).choices[0]!.message;
    const streamed = assembleMessage(await runStream("gemini", sse([parts]), gemini3));
    expect(streamed.reasoning_details).toEqual(json.reasoning_details!);
    expect(streamed.tool_calls).toEqual(json.tool_calls!);
  });
});

describe("gemini reasoning: requests", () => {
  test("an assistant message's Gemini entries go back on their parts; other families' entries are dropped", () => {
    const json = body({
      messages: [
        { role: "user", content: "Weather?" },
        {
          role: "assistant",
          content: "Checking.",
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "w", arguments: '{"city":"Paris"}' } },
            { id: "call_2", type: "function", function: { name: "w", arguments: '{"city":"Oslo"}' } },
          ],
          reasoning_details: [
            { type: "reasoning.text", text: "Claude thought", signature: "anthropic-sig", format: "anthropic-claude-v1" },
            { type: "reasoning.text", text: "Plan.", signature: "sigT", format: G },
            { type: "reasoning.encrypted", data: "sigA", format: G },
            { type: "reasoning.encrypted", data: "sigC", id: "call_1", format: G },
            { type: "reasoning.summary", summary: "s", id: "rs_1", format: "openai-responses-v1" },
            { type: "reasoning.text", text: "shown anywhere", format: "unknown" },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: "18C" },
        { role: "tool", tool_call_id: "call_2", content: "3C" },
      ],
    });
    expect(json.contents[1]).toEqual({
      role: "model",
      parts: [
        { text: "Plan.", thought: true, thoughtSignature: "sigT" },
        { text: "Checking.", thoughtSignature: "sigA" },
        { functionCall: { name: "w", args: { city: "Paris" } }, thoughtSignature: "sigC" },
        { functionCall: { name: "w", args: { city: "Oslo" } } },
      ],
    });
    expect(JSON.stringify(json)).not.toContain("anthropic-sig");
    expect(JSON.stringify(json)).not.toContain("shown anywhere");
  });

  test("an id-less signature with no answer text to sit on comes back as an empty closing text part", () => {
    const json = body({
      messages: [
        { role: "user", content: "Hi" },
        { role: "assistant", content: null, reasoning_details: [{ type: "reasoning.encrypted", data: "sigEnd", format: G }] },
        { role: "user", content: "Again" },
      ],
    });
    expect(json.contents[1]).toEqual({ role: "model", parts: [{ text: "", thoughtSignature: "sigEnd" }] });
  });

  test("an empty unsigned thought, and a signature for a call the message no longer has, are not sent", () => {
    const json = body(
      {
        messages: [
          { role: "user", content: "Hi" },
          {
            role: "assistant",
            content: "Hello",
            reasoning_details: [
              { type: "reasoning.text", text: "", format: G },
              { type: "reasoning.encrypted", data: "sigGone", id: "call_gone", format: G },
            ],
          },
          { role: "user", content: "Again" },
        ],
      },
      target("gemini", { providerModelId: "gemini-2.5-flash" }),
    );
    expect(json.contents[1]).toEqual({ role: "model", parts: [{ text: "Hello" }] });
  });

  test("on Gemini 3, the current turn's unsigned first calls get Google's placeholder signature; earlier turns and 2.5 do not", () => {
    const call = (id: string) => ({
      role: "assistant" as const,
      content: null,
      tool_calls: [{ id, type: "function" as const, function: { name: "f", arguments: "{}" } }],
    });
    const messages: ChatMessage[] = [
      { role: "user", content: "one" },
      call("c1"),
      { role: "tool", tool_call_id: "c1", content: "ok" },
      { role: "user", content: "two" },
      call("c2"),
      { role: "tool", tool_call_id: "c2", content: "ok" },
      call("c3"),
      { role: "tool", tool_call_id: "c3", content: "ok" },
    ];
    const signatures = (t = gemini3) =>
      body({ messages }, t)
        .contents.filter((c: { role: string }) => c.role === "model")
        .map((c: { parts: { thoughtSignature?: string }[] }) => c.parts[0]!.thoughtSignature);
    expect(signatures()).toEqual([undefined, "skip_thought_signature_validator", "skip_thought_signature_validator"]);
    expect(signatures(target("gemini", { providerModelId: "gemini-2.5-flash" }))).toEqual([undefined, undefined, undefined]);
  });
});

describe("gemini reasoning: a three-turn tool conversation through the chat model", () => {
  test("every signature Gemini gave comes back on the same part, turn after turn, JSON then streamed", async () => {
    const tools: ChatRequest["tools"] = [
      { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } },
    ];
    const user: ChatMessage = { role: "user", content: "Weather in Paris, then Oslo?" };
    // Turn 1: a JSON answer with a signed thought and a signed call.
    const first = adapter.parseResponse(
      answer(
        [
          { text: "Paris first.", thought: true, thoughtSignature: "sig-thought-1" },
          { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: "sig-call-1" },
        ],
        "r1",
      ),
      gemini3,
    );
    const a1 = asHistory(first.choices[0]!.message);
    const id1 = a1.tool_calls![0]!.id;
    const turn2: ChatMessage[] = [user, a1, { role: "tool", tool_call_id: id1, content: '{"temp":18}' }];
    const body2 = body({ messages: turn2, tools });
    expect(body2.contents[1]).toEqual({
      role: "model",
      parts: [
        { text: "Paris first.", thought: true, thoughtSignature: "sig-thought-1" },
        { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: "sig-call-1" },
      ],
    });
    // Turn 2: a streamed answer, the call's signature on the call, a thought signed in a later chunk.
    const streamed = assembleMessage(
      await runStream(
        "gemini",
        sse(
          [
            [{ text: "Now Oslo.", thought: true }],
            [{ text: "", thought: true, thoughtSignature: "sig-thought-2" }],
            [{ functionCall: { name: "get_weather", args: { city: "Oslo" } }, thoughtSignature: "sig-call-2" }],
          ],
          "r2",
        ),
        gemini3,
      ),
    );
    const a2: ChatMessage = {
      role: "assistant",
      content: streamed.content,
      tool_calls: streamed.tool_calls,
      reasoning_details: readDetails(JSON.parse(JSON.stringify(streamed.reasoning_details))),
    };
    const id2 = a2.tool_calls![0]!.id;
    expect(id2).not.toBe(id1);
    // Turn 3: both steps of the current turn carry their own signatures (no placeholder needed).
    const body3 = body({ messages: [...turn2, a2, { role: "tool", tool_call_id: id2, content: '{"temp":3}' }], tools });
    expect(body3.contents.map((c: { role: string }) => c.role)).toEqual(["user", "model", "user", "model", "user"]);
    expect(body3.contents[1]).toEqual(body2.contents[1]);
    expect(body3.contents[3]).toEqual({
      role: "model",
      parts: [
        { text: "Now Oslo.", thought: true, thoughtSignature: "sig-thought-2" },
        { functionCall: { name: "get_weather", args: { city: "Oslo" } }, thoughtSignature: "sig-call-2" },
      ],
    });
    expect(JSON.stringify(body3)).not.toContain("skip_thought_signature_validator");
    expect(body3.contents[4].parts).toEqual([{ functionResponse: { name: "get_weather", response: { temp: 3 } } }]);
  });
});
