// Issue 55: a chat client's assistant reasoning reaches the translation as reasoning_details entries.
import { describe, expect, test } from "bun:test";
import { withReasoningDetails } from "../../../src/inference/chat/reasoning-in";
import type { ChatRequest } from "../../../src/providers/types";

describe("withReasoningDetails", () => {
  test("a request without reasoning is the same object", () => {
    const req: ChatRequest = {
      model: "m",
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: "yo" },
      ],
    };
    expect(withReasoningDetails(req)).toBe(req);
  });

  test("reasoning_details are kept entry by entry; malformed entries dropped", () => {
    const details = [
      { type: "reasoning.text", text: "t", signature: "sig", format: "anthropic-claude-v1", index: 0 },
      { type: "reasoning.encrypted", data: "d", format: "google-gemini-v1", id: "call_1" },
      { type: "nonsense" },
      "x",
    ];
    const req: ChatRequest = { model: "m", messages: [{ role: "assistant", content: "a", reasoning_details: details as never }] };
    const out = withReasoningDetails(req);
    expect(out).not.toBe(req);
    expect(out.messages[0]!.reasoning_details).toEqual([
      { type: "reasoning.text", text: "t", signature: "sig", format: "anthropic-claude-v1" },
      { type: "reasoning.encrypted", data: "d", format: "google-gemini-v1", id: "call_1" },
    ]);
    // The client's message is not changed (it is the native body of chat routes).
    expect(req.messages[0]!.reasoning_details).toBe(details as never);
  });

  test("reasoning_content (DeepSeek) and reasoning (OpenRouter) become one unsigned entry", () => {
    const req: ChatRequest = {
      model: "m",
      messages: [
        { role: "assistant", content: "a", reasoning_content: "because" },
        { role: "assistant", content: "b", reasoning: "so" },
        { role: "assistant", content: "c", reasoning_content: "" },
      ],
    };
    const out = withReasoningDetails(req).messages.map((m) => m.reasoning_details);
    expect(out).toEqual([
      [{ type: "reasoning.text", text: "because", format: "unknown" }],
      [{ type: "reasoning.text", text: "so", format: "unknown" }],
      undefined,
    ]);
  });
});
