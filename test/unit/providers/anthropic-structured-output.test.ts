// Issue 55 item 4: structured output toward Anthropic is its own mode where the model has it
// (output_config.format with the strict schema), and a system hint where it does not.
import { describe, expect, test } from "bun:test";
import { anthropicAdapter as adapter } from "../../../src/providers/anthropic/adapter";
import { hasStructuredOutputs } from "../../../src/providers/anthropic/request";
import type { ChatRequest } from "../../../src/providers/types";
import { target } from "./stream-harness";

const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false };

function build(model: string, format: ChatRequest["response_format"], extra: Partial<ChatRequest> = {}) {
  const req: ChatRequest = { model: "m", messages: [{ role: "user", content: "Where?" }], response_format: format, ...extra };
  return JSON.parse(adapter.buildRequest(req, target("anthropic", { providerModelId: model })).body);
}

describe("anthropic structured output", () => {
  test("a strict json_schema on a model with structured outputs is output_config.format; no hint", () => {
    const body = build("claude-sonnet-4-5-20250929", { type: "json_schema", json_schema: { name: "place", schema, strict: true } });
    expect(body.output_config).toEqual({ format: { type: "json_schema", schema } });
    expect(body.system).toBeUndefined();
  });

  test("with thinking on an adaptive model, the format and the effort share output_config", () => {
    const body = build(
      "claude-opus-4-7",
      { type: "json_schema", json_schema: { name: "place", schema, strict: true } },
      { reasoning_effort: "low" },
    );
    expect(body.output_config).toEqual({ format: { type: "json_schema", schema }, effort: "low" });
  });

  test("a non-strict schema, json_object, or an older model: the system hint", () => {
    const loose = build("claude-sonnet-4-5", { type: "json_schema", json_schema: { name: "place", schema } });
    expect(loose.output_config).toBeUndefined();
    expect(loose.system).toContain("JSON Schema");
    expect(build("claude-sonnet-4-5", { type: "json_object" }).system).toContain("JSON object");
    const old = build("claude-3-7-sonnet-20250219", { type: "json_schema", json_schema: { name: "place", schema, strict: true } });
    expect(old.output_config).toBeUndefined();
    expect(old.system).toContain(JSON.stringify(schema));
  });

  test("which models have structured outputs", () => {
    for (const m of [
      "claude-sonnet-4-5",
      "claude-haiku-4-5-20251001",
      "claude-opus-4-1",
      "claude-opus-4-5",
      "claude-sonnet-4-6",
      "claude-opus-5",
      "mythos",
    ])
      expect(hasStructuredOutputs(m)).toBe(true);
    for (const m of ["claude-sonnet-4-20250514", "claude-opus-4-20250514", "claude-3-5-haiku-20241022", "claude-3-7-sonnet-20250219"])
      expect(hasStructuredOutputs(m)).toBe(false);
  });
});
