// Internal request → OpenAI Responses API request (POST {baseUrl}/responses, baseUrl ending in /v1).
// Choices the chat shape leaves to us:
// - `store: false` always: the gateway is stateless and must not leave conversations at the provider.
//   So `include` always asks for reasoning.encrypted_content: the next turn replays the reasoning
//   items from what they carry (input.ts), not from the provider's storage.
// - Function tools are sent with `strict: false` unless the client asked for strict: the Responses
//   API defaults to strict (chat does not), which would reject schemas chat clients send happily.
// - Unknown top-level fields are NOT passed through as on chat completions: this API answers 400 to
//   any parameter it does not know. Only fields with the same name and meaning on both APIs travel;
//   everything else (n>1, logit_bias, seed, stop, penalties, logprobs…) is dropped with a warning.
import { HINTS, type BuiltRequest, type ChatRequest, type ToolDef, type UpstreamTarget, type Warning } from "../types";
import { isRecord } from "../content-parts";
import { mergeExtensions } from "../extensions";
import { convertInput } from "./input";

/** Fields translated below. `stream_options` is moot: Responses streams always end with usage. */
const HANDLED = new Set([
  "model",
  "messages",
  "stream",
  "stream_options",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "response_format",
  "temperature",
  "top_p",
  "max_tokens",
  "max_completion_tokens",
  "reasoning_effort",
  "verbosity",
]);

/** Same name, same meaning on both APIs: copied as they are. */
const PASSED_THROUGH = ["user", "metadata", "service_tier", "prompt_cache_key", "prompt_cache_retention", "safety_identifier"];

export function buildResponsesRequest(req: ChatRequest, target: UpstreamTarget): BuiltRequest {
  const warnings: Warning[] = [];
  const { instructions, input } = convertInput(req.messages, warnings);
  const body: Record<string, unknown> = { model: target.providerModelId };
  if (instructions !== undefined) body.instructions = instructions;
  body.input = input;
  body.store = false;
  if (req.stream === true) body.stream = true;
  const maxOutput = req.max_completion_tokens ?? req.max_tokens;
  if (typeof maxOutput === "number") body.max_output_tokens = maxOutput;
  if (typeof req.temperature === "number") body.temperature = req.temperature;
  if (typeof req.top_p === "number") body.top_p = req.top_p;
  const reasoning = reasoningConfig(req);
  if (reasoning) body.reasoning = reasoning;
  body.include = [...new Set([ENCRYPTED_REASONING, ...(req[HINTS]?.include ?? [])])];
  const text = textConfig(req);
  if (text) body.text = text;
  if (Array.isArray(req.tools) && req.tools.length > 0) {
    body.tools = req.tools.flatMap((tool, i) => toResponsesTool(tool, i, warnings));
    const choice = toolChoice(req.tool_choice, warnings);
    if (choice !== undefined) body.tool_choice = choice;
    if (typeof req.parallel_tool_calls === "boolean") body.parallel_tool_calls = req.parallel_tool_calls;
  }
  for (const field of PASSED_THROUGH) if (req[field] !== undefined && req[field] !== null) body[field] = req[field];
  for (const [field, value] of Object.entries(req)) {
    if (HANDLED.has(field) || PASSED_THROUGH.includes(field) || !isMeaningful(field, value)) continue;
    warnings.push({
      type: "unsupported_parameter",
      code: field,
      message: `"${field}" is not supported by the Responses API and was dropped.`,
    });
  }
  mergeExtensions(body, target.extensions);

  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: req.stream === true ? "text/event-stream" : "application/json",
  };
  if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
  const root = target.baseUrl.endsWith("/") ? target.baseUrl.slice(0, -1) : target.baseUrl;
  return { url: `${root}/responses`, headers, body: JSON.stringify(body), warnings };
}

const ENCRYPTED_REASONING = "reasoning.encrypted_content";

/** reasoning_effort, and the summary a Responses client asked for (`reasoning.summary`, a request hint). */
function reasoningConfig(req: ChatRequest): Record<string, unknown> | undefined {
  const reasoning: Record<string, unknown> = {};
  if (typeof req.reasoning_effort === "string") reasoning.effort = req.reasoning_effort;
  const summary = req[HINTS]?.reasoningSummary;
  if (typeof summary === "string") reasoning.summary = summary;
  return Object.keys(reasoning).length > 0 ? reasoning : undefined;
}

/** Defaults (n: 1, logprobs: false, store: false, null) change nothing, so dropping them is not worth a warning. */
function isMeaningful(field: string, value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (field === "n") return value !== 1;
  return true;
}

function textConfig(req: ChatRequest): Record<string, unknown> | undefined {
  const text: Record<string, unknown> = {};
  const format = req.response_format;
  if (format?.type === "json_object") text.format = { type: "json_object" };
  if (format?.type === "json_schema" && isRecord(format.json_schema)) {
    const { name, schema, strict, description } = format.json_schema;
    const out: Record<string, unknown> = { type: "json_schema", name: typeof name === "string" ? name : "response", schema: schema ?? {} };
    if (typeof strict === "boolean") out.strict = strict;
    if (typeof description === "string") out.description = description;
    text.format = out;
  }
  if (typeof req.verbosity === "string") text.verbosity = req.verbosity;
  return Object.keys(text).length > 0 ? text : undefined;
}

function toResponsesTool(tool: ToolDef, position: number, warnings: Warning[]): Record<string, unknown>[] {
  if (tool.type !== "function" || !isRecord(tool.function)) {
    warnings.push({
      type: "unsupported_parameter",
      code: `tools[${position}]`,
      message: `Tools of type "${String(tool.type)}" are not supported by the Responses API and were dropped.`,
    });
    return [];
  }
  const out: Record<string, unknown> = {
    type: "function",
    name: tool.function.name,
    parameters: tool.function.parameters ?? { type: "object", properties: {} },
    strict: tool.function.strict ?? false,
  };
  if (tool.function.description) out.description = tool.function.description;
  return [out];
}

/** Chat tool_choice → Responses tool_choice (function names move up out of `function`). */
function toolChoice(choice: unknown, warnings: Warning[]): unknown {
  if (choice === undefined || choice === null) return undefined;
  if (choice === "auto" || choice === "none" || choice === "required") return choice;
  if (isRecord(choice) && choice.type === "function" && isRecord(choice.function) && typeof choice.function.name === "string") {
    return { type: "function", name: choice.function.name };
  }
  if (isRecord(choice) && choice.type === "allowed_tools" && isRecord(choice.allowed_tools) && Array.isArray(choice.allowed_tools.tools)) {
    const tools = choice.allowed_tools.tools
      .map((t: unknown) => (isRecord(t) && isRecord(t.function) ? t.function.name : undefined))
      .filter((name): name is string => typeof name === "string")
      .map((name) => ({ type: "function", name }));
    return { type: "allowed_tools", mode: choice.allowed_tools.mode === "required" ? "required" : "auto", tools };
  }
  warnings.push({
    type: "unsupported_parameter",
    code: "tool_choice",
    message: "This tool_choice cannot be expressed in the Responses API; the provider's default applies.",
  });
  return undefined;
}
