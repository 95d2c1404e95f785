// Issue 55 on the Messages request: thinking blocks become reasoning_details (carried tokens restored),
// thinking and effort become reasoning_effort, cache breakpoints survive, what cannot be carried warns.
import { describe, expect, test } from "bun:test";
import { encodeCarried } from "../../../src/providers/reasoning";
import { HINTS } from "../../../src/providers/types";
import { claudeThought, geminiCallSignature, geminiThought, responsesSummary, translate } from "./messages-lossless-fixtures";

const user = { role: "user", content: "Weather?" };
const assistantWith = (...content: Record<string, unknown>[]) => translate({ messages: [user, { role: "assistant", content }] });

describe("messages request: thinking blocks → reasoning_details", () => {
  test("thinking and redacted_thinking become Anthropic entries, signature as is, in order", () => {
    const { request } = assistantWith(
      { type: "thinking", thinking: "a", signature: "sig-a" },
      { type: "redacted_thinking", data: "opaque" },
      { type: "text", text: "Done." },
    );
    expect(request.messages[1]).toEqual({
      role: "assistant",
      content: "Done.",
      reasoning_details: [
        { type: "reasoning.text", text: "a", signature: "sig-a", format: "anthropic-claude-v1" },
        { type: "reasoning.encrypted", data: "opaque", format: "anthropic-claude-v1" },
      ],
    });
  });

  test("a signature that is a carried token gives back exactly the entries it carries, between native ones", () => {
    const token = encodeCarried([geminiThought, geminiCallSignature]);
    const { request } = assistantWith(
      { type: "thinking", thinking: "shown text is not what counts", signature: token },
      { type: "thinking", thinking: claudeThought.text, signature: claudeThought.signature },
      { type: "thinking", thinking: responsesSummary.summary, signature: encodeCarried([responsesSummary]) },
      { type: "tool_use", id: "call_1", name: "get_weather", input: {} },
    );
    expect(request.messages[1]!.reasoning_details).toEqual([geminiThought, geminiCallSignature, claudeThought, responsesSummary]);
    expect(request.messages[1]!.content).toBeNull();
  });

  test("a thinking block without a signature is an unsigned Anthropic entry; unknown extra fields are accepted", () => {
    const { request } = assistantWith({ type: "thinking", thinking: "t", extra_field: 1 }, { type: "text", text: "x", citations: [] });
    expect(request.messages[1]!.reasoning_details).toEqual([{ type: "reasoning.text", text: "t", format: "anthropic-claude-v1" }]);
  });

  test("a redacted_thinking block without data is refused naming the field", () => {
    const parsed = (() => {
      try {
        return assistantWith({ type: "redacted_thinking" });
      } catch (e) {
        return (e as Error).message;
      }
    })();
    expect(parsed).toContain("messages[1].content[0].data");
  });

  test("an assistant turn without thinking has no reasoning_details", () => {
    expect(assistantWith({ type: "text", text: "hi" }).request.messages[1]).toEqual({ role: "assistant", content: "hi" });
  });
});

describe("messages request: thinking and effort → reasoning_effort", () => {
  const effort = (extra: Record<string, unknown>) => translate({ messages: [user], ...extra }).request;

  test("enabled with a budget: the nearest effort, and the budget itself as a hint", () => {
    const request = effort({ thinking: { type: "enabled", budget_tokens: 10_000 } });
    expect(request.reasoning_effort).toBe("medium");
    expect(request[HINTS]).toEqual({ thinkingBudget: 10_000 });
    expect(JSON.stringify(request)).not.toContain("thinkingBudget");
  });

  test("adaptive takes output_config.effort (max is xhigh); without one, Anthropic's default high", () => {
    const adaptive = (e?: string) =>
      effort({ thinking: { type: "adaptive" }, ...(e ? { output_config: { effort: e } } : {}) }).reasoning_effort;
    expect([adaptive("low"), adaptive("medium"), adaptive("high"), adaptive("max"), adaptive()]).toEqual([
      "low",
      "medium",
      "high",
      "xhigh",
      "high",
    ]);
    expect(effort({ thinking: { type: "adaptive" } })[HINTS]).toBeUndefined();
  });

  test("disabled is none; output_config.effort alone is the effort; no thinking, no effort", () => {
    expect(effort({ thinking: { type: "disabled" } }).reasoning_effort).toBe("none");
    expect(effort({ output_config: { effort: "low" } }).reasoning_effort).toBe("low");
    expect(effort({}).reasoning_effort).toBeUndefined();
  });

  test("an effort output_config does not know is refused", () => {
    expect(() => effort({ output_config: { effort: "extreme" } })).toThrow("output_config.effort");
  });

  test("output_config.format (structured output) becomes a json_schema response_format", () => {
    const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
    expect(effort({ output_config: { format: { type: "json_schema", schema } } }).response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "output", schema, strict: true },
    });
  });
});

describe("messages request: cache_control survives", () => {
  const ephemeral = { type: "ephemeral" };
  const hour = { type: "ephemeral", ttl: "1h" };

  test("a system array with a breakpoint stays text parts, each with its own marker; a string system stays a string", () => {
    const { request } = translate({
      system: [
        { type: "text", text: "You are Claude Code." },
        { type: "text", text: "Project rules.", cache_control: hour },
      ],
      messages: [user],
    });
    expect(request.messages[0]).toEqual({
      role: "system",
      content: [
        { type: "text", text: "You are Claude Code." },
        { type: "text", text: "Project rules.", cache_control: hour },
      ],
    });
    expect(translate({ system: "Plain.", messages: [user] }).request.messages[0]).toEqual({ role: "system", content: "Plain." });
  });

  test("text, image and document blocks of a user turn keep theirs; a marked single text is not collapsed", () => {
    const { request } = translate({
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Read", cache_control: ephemeral },
            { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" }, cache_control: ephemeral },
            { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBE" }, cache_control: hour },
            { type: "document", source: { type: "text", media_type: "text/plain", data: "notes" }, cache_control: ephemeral },
          ],
        },
        { role: "assistant", content: "ok" },
        { role: "user", content: [{ type: "text", text: "Last", cache_control: ephemeral }] },
      ],
    });
    expect(request.messages[0]!.content).toEqual([
      { type: "text", text: "Read", cache_control: ephemeral },
      { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" }, cache_control: ephemeral },
      { type: "file", file: { file_data: "data:application/pdf;base64,JVBE" }, cache_control: hour },
      { type: "text", text: "notes", cache_control: ephemeral },
    ]);
    expect(request.messages[2]).toEqual({ role: "user", content: [{ type: "text", text: "Last", cache_control: ephemeral }] });
  });

  test("a tool_result's marker goes on the tool message; its marked parts stay parts, its images keep theirs", () => {
    const { request } = translate({
      messages: [
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "t1", content: "18C", cache_control: ephemeral },
            {
              type: "tool_result",
              tool_use_id: "t2",
              content: [
                { type: "text", text: "a" },
                { type: "text", text: "b", cache_control: ephemeral },
                { type: "image", source: { type: "url", url: "https://example.test/c.png" }, cache_control: ephemeral },
              ],
            },
            { type: "tool_result", tool_use_id: "t3", content: [{ type: "text", text: "plain" }] },
          ],
        },
      ],
    });
    expect(request.messages).toEqual([
      { role: "tool", tool_call_id: "t1", content: "18C", cache_control: ephemeral },
      {
        role: "tool",
        tool_call_id: "t2",
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b", cache_control: ephemeral },
        ],
      },
      { role: "tool", tool_call_id: "t3", content: "plain" },
      { role: "user", content: [{ type: "image_url", image_url: { url: "https://example.test/c.png" }, cache_control: ephemeral }] },
    ]);
  });

  test("a tool's marker is the ToolDef's top-level cache_control; strict is kept", () => {
    const { request } = translate({
      messages: [user],
      tools: [
        { name: "a", input_schema: { type: "object" } },
        { name: "b", input_schema: { type: "object" }, strict: true, cache_control: ephemeral },
      ],
    });
    expect(request.tools as unknown[]).toEqual([
      { type: "function", function: { name: "a", parameters: { type: "object" } } },
      { type: "function", function: { name: "b", parameters: { type: "object" }, strict: true }, cache_control: ephemeral },
    ]);
  });
});

describe("messages request: the rest, and what is dropped", () => {
  test("a system turn inside messages stays a system message where it stands; its non-text blocks warn", () => {
    const { request, warnings } = translate({
      system: "Top.",
      messages: [
        user,
        { role: "assistant", content: "ok" },
        { role: "system", content: "Mid-conversation rule." },
        {
          role: "system",
          content: [
            { type: "text", text: "Reminder.", cache_control: { type: "ephemeral" } },
            { type: "image", source: { type: "url", url: "https://example.test/a.png" } },
          ],
        },
        { role: "user", content: "Go on." },
      ],
    });
    expect(request.messages.map((m) => [m.role, m.content])).toEqual([
      ["system", "Top."],
      ["user", "Weather?"],
      ["assistant", "ok"],
      ["system", "Mid-conversation rule."],
      ["system", [{ type: "text", text: "Reminder.", cache_control: { type: "ephemeral" } }]],
      ["user", "Go on."],
    ]);
    expect(warnings.map((w) => w.code)).toEqual(["messages[3].content[1]"]);
  });

  test("a document asking for citations is sent without them, with a warning", () => {
    const { request, warnings } = translate({
      messages: [
        {
          role: "user",
          content: [{ type: "document", source: { type: "text", media_type: "text/plain", data: "doc" }, citations: { enabled: true } }],
        },
      ],
    });
    expect(request.messages[0]!.content).toBe("doc");
    expect(warnings).toEqual([expect.objectContaining({ type: "unsupported_parameter", code: "messages[0].content[0].citations" })]);
  });

  test("a tool_choice naming a dropped server tool is not applied, with a warning", () => {
    const { request, warnings } = translate({
      messages: [user],
      tools: [
        { name: "get_weather", input_schema: { type: "object" } },
        { type: "web_search_20250305", name: "web_search" },
      ],
      tool_choice: { type: "tool", name: "web_search" },
    });
    expect(request.tools!.map((t) => t.function.name)).toEqual(["get_weather"]);
    expect(request.tool_choice).toBeUndefined();
    expect(warnings.map((w) => w.code)).toEqual(["tools[1]", "tool_choice"]);
  });

  test("context_management, mcp_servers and container (run by Anthropic's servers) are dropped with a warning each", () => {
    const { request, warnings } = translate({
      messages: [user],
      context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
      mcp_servers: [{ type: "url", url: "https://mcp.example", name: "m" }],
      container: "container_1",
    });
    expect(warnings.map((w) => w.code)).toEqual(["context_management", "mcp_servers", "container"]);
    expect(Object.keys(request)).not.toContain("context_management");
  });

  test("server tools of every kind are dropped with a warning each", () => {
    const { request, warnings } = translate({
      messages: [user],
      tools: [
        { type: "web_search_20250305", name: "web_search" },
        { type: "bash_20250124", name: "bash" },
        { type: "text_editor_20250728", name: "str_replace_based_edit_tool" },
      ],
    });
    expect(request.tools).toBeUndefined();
    expect(warnings.map((w) => w.code)).toEqual(["tools[0]", "tools[1]", "tools[2]"]);
  });
});
