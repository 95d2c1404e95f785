// Issue 55, effort on the Anthropic wire: a client's exact thinking budget (the request's hints) wins over
// the effort's table budget on the models that take a budget, within the route's limits.
import { describe, expect, test } from "bun:test";
import { anthropicAdapter as adapter } from "../../../src/providers/anthropic/adapter";
import { HINTS, type ChatRequest, type UpstreamTarget } from "../../../src/providers/types";
import { target } from "./stream-harness";

const older = { maxOutputTokens: 64_000, providerModelId: "claude-sonnet-4-5-20250929" };
const adaptive = { maxOutputTokens: 64_000, providerModelId: "claude-opus-4-7" };

function build(req: Partial<ChatRequest>, budget: number | undefined, over: Partial<UpstreamTarget> = older) {
  const request: ChatRequest = { model: "m", messages: [{ role: "user", content: "Hi" }], ...req };
  if (budget !== undefined) request[HINTS] = { thinkingBudget: budget };
  const built = adapter.buildRequest(request, target("anthropic", over));
  return { ...built, json: JSON.parse(built.body) };
}

describe("anthropic effort: the client's exact budget", () => {
  test("is the budget, and a max_tokens that already holds it (Anthropic's meaning) is sent as it is", () => {
    const { json, warnings } = build({ reasoning_effort: "medium", max_tokens: 16_000 }, 10_000);
    expect(json.thinking).toEqual({ type: "enabled", budget_tokens: 10_000 });
    expect(json.max_tokens).toBe(16_000);
    expect(warnings).toEqual([]);
  });

  test("the route's output limit still caps the total, the answer keeping its share", () => {
    const { json } = build({ reasoning_effort: "medium", max_tokens: 16_000 }, 10_000, { ...older, maxOutputTokens: 12_000 });
    expect(json.max_tokens).toBe(12_000);
    expect(json.thinking.budget_tokens).toBe(6_000);
  });

  test("a budget under Anthropic's smallest is raised to it", () => {
    expect(build({ reasoning_effort: "low", max_tokens: 2_000 }, 500).json.thinking).toEqual({ type: "enabled", budget_tokens: 1_024 });
  });

  test("a budget alone turns thinking on; reasoning_effort none keeps it off whatever the budget", () => {
    expect(build({ max_tokens: 8_000 }, 3_000).json).toMatchObject({ max_tokens: 8_000, thinking: { budget_tokens: 3_000 } });
    const off = build({ reasoning_effort: "none", max_tokens: 8_000 }, 3_000);
    expect(off.json.thinking).toBeUndefined();
    expect(off.json.max_tokens).toBe(8_000);
    expect(off.warnings).toEqual([]);
  });

  test("without a budget the effort's table budget applies, added on top of max_tokens (unchanged)", () => {
    expect(build({ reasoning_effort: "medium", max_tokens: 500 }, undefined).json).toMatchObject({
      max_tokens: 8_692,
      thinking: { type: "enabled", budget_tokens: 8_192 },
    });
  });

  test("an adaptive model takes no budget: the effort decides, or the budget's nearest effort when only a budget came", () => {
    const withEffort = build({ reasoning_effort: "high", max_tokens: 16_000 }, 10_000, adaptive).json;
    expect(withEffort.thinking).toEqual({ type: "adaptive" });
    expect(withEffort.output_config).toEqual({ effort: "high" });
    expect(build({ max_tokens: 16_000 }, 9_000, adaptive).json.output_config).toEqual({ effort: "medium" });
    expect(build({ max_tokens: 40_000 }, 30_000, adaptive).json.output_config).toEqual({ effort: "max" });
  });
});
