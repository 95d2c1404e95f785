import { describe, expect, test } from "bun:test";
import { parseModelSuffix } from "../../../src/routing/model-suffix";

describe("parseModelSuffix", () => {
  test("each strategy suffix is split off a single-colon ID", () => {
    for (const s of ["cost", "cost-focus", "ttft", "ttft-focus", "tps", "tps-focus", "balanced"]) {
      expect(parseModelSuffix(`acme/chat-small:${s}`)).toEqual({ model: "acme/chat-small", optimize: s as never });
    }
  });

  test(":floor means cost and :nitro means tps", () => {
    expect(parseModelSuffix("acme/chat-small:floor")).toEqual({ model: "acme/chat-small", optimize: "cost" });
    expect(parseModelSuffix("acme/chat-small:nitro")).toEqual({ model: "acme/chat-small", optimize: "tps" });
  });

  test("fine-tune IDs with several colons are left alone", () => {
    expect(parseModelSuffix("ft:gpt-4o:acme:x")).toEqual({ model: "ft:gpt-4o:acme:x" });
    expect(parseModelSuffix("ft:gpt-4o:acme:ttft")).toEqual({ model: "ft:gpt-4o:acme:ttft" });
  });

  test("an unknown single suffix is part of the ID", () => {
    expect(parseModelSuffix("llama3:8b")).toEqual({ model: "llama3:8b" });
    expect(parseModelSuffix("acme/chat-small:TTFT")).toEqual({ model: "acme/chat-small:TTFT" });
  });

  test("IDs without a colon, or with only a suffix, pass unchanged", () => {
    expect(parseModelSuffix("acme/chat-small")).toEqual({ model: "acme/chat-small" });
    expect(parseModelSuffix(":ttft")).toEqual({ model: ":ttft" });
    expect(parseModelSuffix("acme/chat-small:")).toEqual({ model: "acme/chat-small:" });
  });
});
