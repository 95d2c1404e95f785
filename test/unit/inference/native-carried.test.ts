// Issue 55: a native body never carries another family's reasoning (a `swy1.` token) to its provider.
import { describe, expect, test } from "bun:test";
import { cutCarried } from "../../../src/inference/native-carried";
import { encodeCarried } from "../../../src/providers/reasoning";

const carried = encodeCarried([{ type: "reasoning.text", text: "Gemini thought", signature: "c2ln", format: "google-gemini-v1" }]);

function messagesBody(thinking?: Record<string, unknown>) {
  return {
    model: "claude",
    max_tokens: 100,
    ...(thinking ? { thinking } : {}),
    messages: [
      { role: "user", content: "list files" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Gemini thought", signature: carried },
          { type: "tool_use", id: "t1", name: "ls", input: {} },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "a.txt" }] },
    ],
  };
}

describe("cutCarried", () => {
  test("a body without carried reasoning is not copied", () => {
    const body = {
      model: "m",
      max_tokens: 5,
      messages: [{ role: "assistant", content: [{ type: "thinking", thinking: "x", signature: "EqQBCkY" }] }],
    };
    expect(cutCarried("anthropic", body)).toBeNull();
    expect(
      cutCarried("responses", { model: "m", input: [{ type: "reasoning", id: "rs_1", summary: [], encrypted_content: "gAAAA" }] }),
    ).toBeNull();
    expect(cutCarried("chat", { model: "m", messages: [] })).toBeNull();
  });

  test("a carried thinking block is cut from a Messages body; the rest is untouched", () => {
    const body = messagesBody();
    const cut = cutCarried("anthropic", body)!;
    const assistant = (cut.body.messages as { content: unknown[] }[])[1]!;
    expect(assistant.content).toEqual([{ type: "tool_use", id: "t1", name: "ls", input: {} }]);
    expect(cut.warnings).toEqual([]);
    // The client's body object is not changed.
    expect(JSON.stringify(body)).toContain(carried);
  });

  test("with thinking on, a tool turn left without its thinking sends the request without thinking, with a warning", () => {
    for (const thinking of [{ type: "enabled", budget_tokens: 2048 }, { type: "adaptive" }]) {
      const cut = cutCarried("anthropic", messagesBody(thinking))!;
      expect(cut.body.thinking).toBeUndefined();
      expect(cut.warnings.map((w) => w.code)).toEqual(["thinking"]);
    }
  });

  test("a carried reasoning item is cut from a Responses body", () => {
    const input = [
      { role: "user", content: "hi" },
      { type: "reasoning", id: "rs_x", summary: [], encrypted_content: carried },
      { type: "reasoning", id: "rs_own", summary: [], encrypted_content: "gAAAAown" },
      { type: "function_call", call_id: "c1", name: "ls", arguments: "{}" },
    ];
    const cut = cutCarried("responses", { model: "m", input })!;
    expect((cut.body.input as { id?: string }[]).map((i) => i.id ?? "msg")).toEqual(["msg", "rs_own", "msg"]);
  });
});
