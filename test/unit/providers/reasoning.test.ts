// Issue 55: the reasoning codec every wire and dialect shares.
import { describe, expect, test } from "bun:test";
import {
  decodeCarried,
  encodeCarried,
  fragmentsOf,
  isCarried,
  mergeFragment,
  ofFormat,
  reasoningText,
  type ReasoningDetail,
} from "../../../src/providers/reasoning";

const entries: ReasoningDetail[] = [
  { type: "reasoning.text", text: "Let me think.", signature: "c2lnLWdlbWluaQ==", format: "google-gemini-v1" },
  { type: "reasoning.encrypted", data: "Zm4tc2ln", id: "call_7", format: "google-gemini-v1" },
  { type: "reasoning.summary", summary: "Summed up.", id: "rs_1", format: "openai-responses-v1" },
];

describe("reasoning codec", () => {
  test("a carried token gives back exactly the entries it was made of (index dropped)", () => {
    const token = encodeCarried(entries.map((e, index) => ({ ...e, index })));
    expect(isCarried(token)).toBe(true);
    expect(decodeCarried(token)).toEqual(entries);
  });

  test("a provider's own signature is not a carried token; a damaged token reads as no entries", () => {
    expect(decodeCarried("EqQBCkYIBxgCKkA")).toBeNull();
    expect(isCarried("EqQBCkYIBxgCKkA")).toBe(false);
    expect(decodeCarried("swy1.%%%")).toEqual([]);
  });

  test("reasoningText joins thinking and summaries; ofFormat keeps one family", () => {
    expect(reasoningText(entries)).toBe("Let me think.\n\nSummed up.");
    expect(ofFormat(entries, "google-gemini-v1")).toHaveLength(2);
    expect(ofFormat(undefined, "anthropic-claude-v1")).toEqual([]);
  });

  test("stream fragments merge into entries: text appended, signature and data set", () => {
    const out: ReasoningDetail[] = [];
    const extra = {
      reasoning_details: [
        { type: "reasoning.text", format: "anthropic-claude-v1", index: 0, text: "Let " },
        { type: "reasoning.text", format: "anthropic-claude-v1", index: 0, text: "me." },
        { type: "reasoning.text", format: "anthropic-claude-v1", index: 0, signature: "sig" },
        { type: "reasoning.encrypted", format: "anthropic-claude-v1", index: 1, data: "redacted" },
        { no: "index" },
      ],
    };
    for (const f of fragmentsOf(extra)) mergeFragment(out, f);
    expect(out).toEqual([
      { type: "reasoning.text", text: "Let me.", signature: "sig", format: "anthropic-claude-v1" },
      { type: "reasoning.encrypted", data: "redacted", format: "anthropic-claude-v1" },
    ]);
    expect(fragmentsOf(undefined)).toEqual([]);
  });
});
