import { describe, expect, test } from "bun:test";
import { estimatedUsage, OutputCount, PLAIN_CHOICE_OVERHEAD } from "../../../src/inference/usage-estimate";
import { PlainDeltaReader } from "../../../src/providers/openai-compatible/plain-delta";
import type { ChatRequest } from "../../../src/providers/types";

describe("the usage estimate of a stream that ended without its usage", () => {
  test("prompt tokens are the request's text at four characters a token, inline data: URLs and the model not counted", () => {
    const request = {
      model: "some/very-long-model-name",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "a".repeat(96) },
            { type: "image_url", image_url: { url: `data:image/png;base64,${"A".repeat(9000)}` } },
          ],
        },
      ],
    } as unknown as ChatRequest;
    // "user" + 96 + "text" + "image_url" = 113 characters → 29 tokens.
    expect(estimatedUsage(request, new OutputCount()).inputTokens).toBe(29);
  });

  test("output tokens count the deltas' text at four characters a token, at least one per delta with text; role-only deltas count nothing", () => {
    const out = new OutputCount();
    out.add({ role: "assistant", content: "" });
    expect(out.tokens()).toBe(0);
    out.add({ content: "a" });
    out.add({ content: "b" });
    expect(out.tokens()).toBe(2);
    out.add({ tool_calls: [{ index: 0, function: { name: "lookup", arguments: "x".repeat(34) } }] });
    expect(out.tokens()).toBe(Math.ceil((2 + 6 + 34) / 4));
  });

  test("a plain choice passed through as bytes counts its content only (PLAIN_CHOICE_OVERHEAD is the choice's JSON around it)", () => {
    const envelope = '{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp",';
    const chunk = (content: string) =>
      `${envelope}"choices":[{"index":0,"delta":{"content":"${content}"},"logprobs":null,"finish_reason":null}]}`;
    const reader = new PlainDeltaReader();
    reader.learn(chunk("first"));
    const bytes = new TextEncoder().encode(`data: ${chunk("twelve chars")}`);
    const from = reader.plainChoice(bytes, 0, bytes.length);
    expect(from).toBeGreaterThan(0);
    const out = new OutputCount();
    out.addPlain(1, reader.choiceEnd - from);
    expect(out.chars).toBe("twelve chars".length);
  });
});
