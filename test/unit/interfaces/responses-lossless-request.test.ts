import { describe, expect, test } from "bun:test";
import { parseResponsesRequest } from "../../../src/inference/responses/schema";
import { responsesToChat } from "../../../src/inference/responses/to-chat";
import { encodeCarried } from "../../../src/providers/reasoning";
import { HINTS } from "../../../src/providers/types";
import { anthropicDetails } from "./responses-lossless-fixtures";

function translate(body: Record<string, unknown>) {
  const parsed = parseResponsesRequest({ model: "acme/chat-small", ...body });
  if (!parsed.ok) throw new Error(`unexpectedly invalid: ${parsed.error.message}`);
  return responsesToChat(parsed.body);
}

const user = { role: "user", content: "Weather in Paris?" };
const call = { type: "function_call", call_id: "c1", name: "get_weather", arguments: '{"city":"Paris"}' };
const weatherCall = { id: "c1", type: "function" as const, function: { name: "get_weather", arguments: '{"city":"Paris"}' } };

describe("responses reasoning items → chat reasoning_details", () => {
  test("a Responses item becomes its own entries, sharing its id, on the assistant turn that follows", () => {
    const { request, warnings } = translate({
      input: [
        user,
        {
          type: "reasoning",
          id: "rs_1",
          summary: [
            { type: "summary_text", text: "First" },
            { type: "summary_text", text: "Second" },
          ],
          content: [{ type: "reasoning_text", text: "raw" }],
          encrypted_content: "gAAAAB==",
        },
        call,
      ],
    });
    expect(warnings).toEqual([]);
    expect(request.messages[1]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [weatherCall],
      reasoning_details: [
        { type: "reasoning.summary", summary: "First", id: "rs_1", format: "openai-responses-v1" },
        { type: "reasoning.summary", summary: "Second", id: "rs_1", format: "openai-responses-v1" },
        { type: "reasoning.text", text: "raw", id: "rs_1", format: "openai-responses-v1" },
        { type: "reasoning.encrypted", data: "gAAAAB==", id: "rs_1", format: "openai-responses-v1" },
      ],
    });
  });

  test("reasoning content of type text (as Codex writes it) is reasoning text; a null content is none", () => {
    const { request } = translate({
      input: [
        user,
        { type: "reasoning", id: "rs_t", summary: [], content: [{ type: "text", text: "raw" }] },
        { type: "reasoning", id: "rs_n", summary: [{ type: "summary_text", text: "S" }], content: null, encrypted_content: null },
        { role: "assistant", content: "Hi" },
      ],
    });
    expect(request.messages[1]!.reasoning_details).toEqual([
      { type: "reasoning.text", text: "raw", id: "rs_t", format: "openai-responses-v1" },
      { type: "reasoning.summary", summary: "S", id: "rs_n", format: "openai-responses-v1" },
    ]);
  });

  test("an empty item keeps its id as one empty summary entry", () => {
    const { request } = translate({ input: [user, { type: "reasoning", id: "rs_e", summary: [] }, { role: "assistant", content: "Hi" }] });
    expect(request.messages[1]!.reasoning_details).toEqual([
      { type: "reasoning.summary", summary: "", id: "rs_e", format: "openai-responses-v1" },
    ]);
  });

  test("encrypted_content that is a carried token gives back exactly the entries it carries", () => {
    const { request } = translate({
      input: [
        user,
        {
          type: "reasoning",
          id: "rs_x",
          summary: [{ type: "summary_text", text: "ignored" }],
          encrypted_content: encodeCarried(anthropicDetails),
        },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Sunny." }] },
      ],
    });
    expect(request.messages[1]).toEqual({ role: "assistant", content: "Sunny.", reasoning_details: anthropicDetails });
  });

  test("reasoning, a message and calls of one turn are one assistant message, entries in order", () => {
    const { request } = translate({
      input: [
        user,
        { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "A" }] },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Checking." }] },
        { type: "reasoning", id: "rs_2", summary: [{ type: "summary_text", text: "B" }] },
        call,
        { type: "function_call_output", call_id: "c1", output: "18C" },
        { type: "reasoning", id: "rs_3", summary: [] },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "18C." }] },
      ],
    });
    expect(request.messages.map((m) => [m.role, m.reasoning_details?.map((d) => d.id)])).toEqual([
      ["user", undefined],
      ["assistant", ["rs_1", "rs_2"]],
      ["tool", undefined],
      ["assistant", ["rs_3"]],
    ]);
    expect(request.messages[1]!.tool_calls).toEqual([weatherCall]);
  });

  test("a reasoning item with no assistant output of its turn is dropped with a warning; so is an unreadable token", () => {
    const { request, warnings } = translate({
      input: [
        user,
        { type: "reasoning", id: "rs_1", summary: [] },
        { role: "user", content: "again" },
        { type: "reasoning", summary: [], encrypted_content: "swy1.not-json" },
      ],
    });
    expect(request.messages.map((m) => m.role)).toEqual(["user", "user"]);
    expect(warnings.map((w) => w.code)).toEqual(["input[1]", "input[3].encrypted_content"]);
    expect(warnings.every((w) => w.type === "unsupported_parameter")).toBe(true);
  });

  test("a reasoning item after the turn's last call still joins that turn", () => {
    const { request, warnings } = translate({ input: [user, call, { type: "reasoning", id: "rs_9", summary: [] }] });
    expect(warnings).toEqual([]);
    expect(request.messages[1]!.reasoning_details?.[0]?.id).toBe("rs_9");
  });
});

describe("responses effort, summary and include", () => {
  test("effort is reasoning_effort; summary and include travel as hints; the echo repeats both truly", () => {
    const { request, echo } = translate({
      input: "x",
      reasoning: { effort: "high", summary: "detailed" },
      include: ["reasoning.encrypted_content"],
    });
    expect(request.reasoning_effort).toBe("high");
    expect(request[HINTS]).toEqual({ reasoningSummary: "detailed", include: ["reasoning.encrypted_content"] });
    expect(echo.reasoning).toEqual({ effort: "high", summary: "detailed" });
    expect(echo.include).toEqual(["reasoning.encrypted_content"]);
    // The hints are under a symbol: no wire serialises them.
    expect(JSON.parse(JSON.stringify(request))).not.toHaveProperty("include");
  });

  test("generate_summary is the older name of summary", () => {
    const { request, echo } = translate({ input: "x", reasoning: { generate_summary: "concise" } });
    expect(request[HINTS]).toEqual({ reasoningSummary: "concise" });
    expect(echo.reasoning).toEqual({ effort: null, summary: "concise" });
  });

  test("no summary and no include: no hints", () => {
    expect(translate({ input: "x", reasoning: { effort: "low" } }).request[HINTS]).toBeUndefined();
  });

  test("include of output_text logprobs asks chat for logprobs, with top_logprobs; top_logprobs alone asks nothing", () => {
    const asked = translate({ input: "x", include: ["message.output_text.logprobs"], top_logprobs: 3 }).request;
    expect(asked).toMatchObject({ logprobs: true, top_logprobs: 3 });
    const alone = translate({ input: "x", top_logprobs: 3 }).request;
    expect(alone.logprobs).toBeUndefined();
    expect(alone.top_logprobs).toBeUndefined();
  });

  test("an include that is not an array is rejected naming it", () => {
    const parsed = parseResponsesRequest({ model: "m", input: "x", include: "reasoning.encrypted_content" });
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error.param).toBe("include");
  });
});

describe("responses tools and the rest of the request", () => {
  test("hosted tools are dropped with a warning each and are not echoed; function and custom tools are", () => {
    const fn = { type: "function", name: "get_weather", parameters: { type: "object", properties: {} } };
    const custom = { type: "custom", name: "apply_patch", description: "Apply a patch." };
    const { request, warnings, echo } = translate({
      input: "x",
      tools: [{ type: "web_search" }, fn, { type: "code_interpreter", container: { type: "auto" } }, custom, { type: "local_shell" }],
    });
    expect(request.tools?.map((t) => t.function.name)).toEqual(["get_weather", "apply_patch"]);
    expect(warnings.map((w) => w.code)).toEqual(["tools[0]", "tools[2]", "tools[4]"]);
    expect(warnings[1]!.message).toBe("Hosted tool 'code_interpreter' is not supported; it was dropped.");
    expect(echo.tools).toEqual([fn, custom]);
    expect(echo.customTools).toEqual(["apply_patch"]);
  });

  test("only hosted tools: no tools are sent and none echoed", () => {
    const { request, echo } = translate({ input: "x", tools: [{ type: "web_search_preview" }], tool_choice: "auto" });
    expect(request.tools).toBeUndefined();
    expect(request.tool_choice).toBeUndefined();
    expect(echo.tools).toEqual([]);
  });

  test("a custom tool is a function taking the string input; its calls and outputs come back as a tool round trip", () => {
    const { request, warnings } = translate({
      input: [
        user,
        { type: "custom_tool_call", call_id: "p1", name: "apply_patch", input: "*** Begin Patch\n*** End Patch" },
        { type: "custom_tool_call_output", call_id: "p1", output: "Done" },
      ],
      tools: [{ type: "custom", name: "apply_patch", description: "Apply a patch.", format: { type: "text" } }],
      tool_choice: { type: "custom", name: "apply_patch" },
    });
    expect(warnings).toEqual([]);
    expect(request.tools).toEqual([
      {
        type: "function",
        function: {
          name: "apply_patch",
          description: "Apply a patch.",
          parameters: {
            type: "object",
            properties: { input: { type: "string", description: "The tool's free-form input." } },
            required: ["input"],
            additionalProperties: false,
          },
        },
      },
    ]);
    expect(request.tool_choice).toEqual({ type: "function", function: { name: "apply_patch" } });
    expect(request.messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "p1", type: "function", function: { name: "apply_patch", arguments: '{"input":"*** Begin Patch\\n*** End Patch"}' } },
        ],
      },
      { role: "tool", tool_call_id: "p1", content: "Done" },
    ]);
  });

  test("a custom tool's grammar cannot be enforced: it goes into the description, with a warning", () => {
    const { request, warnings } = translate({
      input: "x",
      tools: [{ type: "custom", name: "apply_patch", format: { type: "grammar", syntax: "lark", definition: "start: PATCH" } }],
    });
    expect(request.tools![0]!.function.description).toBe("The input must follow this lark grammar:\nstart: PATCH");
    expect(warnings).toEqual([
      {
        type: "unsupported_parameter",
        code: "tools[0].format",
        message:
          "The grammar format of custom tool 'apply_patch' cannot be enforced on this route; it is given to the model in the tool's description.",
      },
    ]);
  });

  test("a custom tool without a name is rejected naming tools[i].name", () => {
    const parsed = parseResponsesRequest({ model: "m", input: "x", tools: [{ type: "custom" }] });
    expect(!parsed.ok && parsed.error.param).toBe("tools[0].name");
  });

  test("allowed_tools keeps the named tools only", () => {
    const { request } = translate({
      input: "x",
      tools: [{ type: "function", name: "f" }],
      tool_choice: { type: "allowed_tools", mode: "required", tools: [{ type: "function", name: "f" }, { type: "web_search" }] },
    });
    expect(request.tool_choice).toEqual({
      type: "allowed_tools",
      allowed_tools: { mode: "required", tools: [{ type: "function", function: { name: "f" } }] },
    });
  });

  test("service_tier and safety_identifier go to chat as they are; truncation is echoed, 'auto' with a warning", () => {
    const { request, warnings, echo } = translate({ input: "x", service_tier: "flex", safety_identifier: "hash-1", truncation: "auto" });
    expect(request).toMatchObject({ service_tier: "flex", safety_identifier: "hash-1" });
    expect(echo).toMatchObject({ truncation: "auto", safety_identifier: "hash-1" });
    expect(warnings.map((w) => w.code)).toEqual(["truncation"]);
    const disabled = translate({ input: "x", truncation: "disabled" });
    expect(disabled.warnings).toEqual([]);
    expect(disabled.echo.truncation).toBe("disabled");
  });

  test("background mode is answered in the call, with a warning", () => {
    expect(translate({ input: "x", background: true }).warnings.map((w) => w.code)).toEqual(["background"]);
    expect(translate({ input: "x", background: false }).warnings).toEqual([]);
  });

  test("a truncation outside its two values is rejected", () => {
    const parsed = parseResponsesRequest({ model: "m", input: "x", truncation: "middle" });
    expect(!parsed.ok && parsed.error.param).toBe("truncation");
  });

  test("max_output_tokens, parallel_tool_calls and a json_schema format keep their chat fields", () => {
    const { request } = translate({
      input: "x",
      max_output_tokens: 300,
      tools: [{ type: "function", name: "f" }],
      parallel_tool_calls: false,
      text: { format: { type: "json_schema", name: "a", schema: { type: "object" } } },
    });
    expect(request).toMatchObject({
      max_tokens: 300,
      parallel_tool_calls: false,
      response_format: { type: "json_schema", json_schema: { name: "a", schema: { type: "object" } } },
    });
  });
});
