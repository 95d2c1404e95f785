// The local count of /v1/messages/count_tokens: which parts of a Messages body are counted, the fixed
// costs, and the bounds that keep one request's BPE work linear (long runs sampled, a budget per request).
import { describe, expect, test } from "bun:test";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import {
  EXACT_CHARS,
  IMAGE_TOKENS,
  MESSAGE_OVERHEAD_TOKENS,
  countedParts,
  estimateInputTokens,
  o200kCounter,
  type TextCounter,
} from "../../../src/inference/messages/token-estimate";

const byChars: TextCounter = (text) => text.length;

describe("countedParts", () => {
  test("system, text blocks, tool_use input JSON, tool_result content and tools are counted", () => {
    const parts = countedParts({
      model: "m",
      system: [{ type: "text", text: "sys", cache_control: { type: "ephemeral" } }],
      messages: [
        { role: "user", content: "plain" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "hmm", signature: "sig" },
            { type: "tool_use", id: "t", name: "look", input: { q: 1 } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "t", content: [{ type: "text", text: "found" }] },
            { type: "tool_result", tool_use_id: "u", content: "also" },
          ],
        },
      ],
      tools: [
        { name: "look", description: "Looks", input_schema: { type: "object" } },
        { type: "web_search_20250305", name: "web_search" },
      ],
      tool_choice: { type: "auto" },
    });
    expect(parts.texts).toEqual([
      "sys",
      "plain",
      "hmm",
      "look",
      '{"q":1}',
      "found",
      "also",
      "look",
      "Looks",
      '{"type":"object"}',
      "web_search",
      "web_search_20250305",
    ]);
    expect(parts.fixedTokens).toBe(3 * MESSAGE_OVERHEAD_TOKENS);
  });

  test("an image costs a fixed amount (its base64 is not text); a text document counts its text; unknown blocks their JSON", () => {
    const parts = countedParts({
      system: "s",
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo".repeat(1000) } },
            { type: "document", title: "Doc", source: { type: "text", media_type: "text/plain", data: "doc body" } },
            { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" } },
            { type: "redacted_thinking", data: "opaque" },
            { type: "future_block", value: "v" },
          ],
        },
      ],
    });
    expect(parts.texts).toEqual(["s", "Doc", "doc body", '{"value":"v"}']);
    expect(parts.fixedTokens).toBe(IMAGE_TOKENS + MESSAGE_OVERHEAD_TOKENS);
  });

  test("missing or odd fields count nothing rather than failing", () => {
    expect(countedParts({ messages: [null, 3, { role: "user" }, { content: [null, 7] }] })).toEqual({
      texts: [],
      fixedTokens: 4 * MESSAGE_OVERHEAD_TOKENS,
    });
    expect(countedParts({ messages: "no", tools: "no", system: 5 })).toEqual({ texts: [], fixedTokens: 0 });
  });
});

describe("estimateInputTokens", () => {
  test("is the texts' counts plus the fixed tokens", async () => {
    const count = await o200kCounter();
    const body = { system: "You are terse.", messages: [{ role: "user", content: "Hello there, how are you today?" }] };
    expect(estimateInputTokens(body, count)).toBe(
      countTokens("You are terse.") + countTokens("Hello there, how are you today?") + MESSAGE_OVERHEAD_TOKENS,
    );
  });

  test("special-token text is counted as text, not refused", async () => {
    const count = await o200kCounter();
    expect(count("a <|endoftext|> b")).toBeGreaterThan(3);
  });

  test("a long run without spaces is counted from a sample: 100,000 letters (minutes of BPE whole) give the sample's ratio", async () => {
    const count = await o200kCounter();
    const seen: number[] = [];
    const spy: TextCounter = (t) => (seen.push(t.length), count(t));
    const n = estimateInputTokens({ messages: [{ role: "user", content: `start ${"a".repeat(100_000)} end` }] }, spy);
    expect(Math.max(...seen)).toBeLessThanOrEqual(64);
    expect(seen.reduce((a, b) => a + b, 0)).toBeLessThan(1100);
    // 64 a's are 8 tokens: the run is 12,500, plus the words around it and the message's overhead.
    expect(n).toBe(12_500 + count("start ") + count(" end") + MESSAGE_OVERHEAD_TOKENS);
  });

  test("past the per-request budget the rest is counted at the ratio seen so far", () => {
    const word = "abcd ";
    const text = word.repeat((EXACT_CHARS * 3) / word.length);
    let exactChars = 0;
    // One token per word: the rest, by the ratio of what was counted, comes within a few tokens of the words.
    const perWord: TextCounter = (t) => ((exactChars += t.length), t.split("a").length - 1);
    const n = estimateInputTokens(
      {
        messages: [
          { role: "user", content: text },
          { role: "user", content: text },
        ],
      },
      perWord,
    );
    // The budget holds inside one long text: cut before a space, so within a word of it.
    expect(exactChars).toBeLessThanOrEqual(EXACT_CHARS);
    expect(exactChars).toBeGreaterThan(EXACT_CHARS - 128);
    const words = text.length / word.length;
    expect(Math.abs(n - 2 * MESSAGE_OVERHEAD_TOKENS - 2 * words)).toBeLessThanOrEqual(words / 10_000);
  });

  test("with a character counter every text is counted in full", () => {
    expect(estimateInputTokens({ system: "abc", messages: [{ role: "user", content: "de" }] }, byChars)).toBe(5 + MESSAGE_OVERHEAD_TOKENS);
  });
});
