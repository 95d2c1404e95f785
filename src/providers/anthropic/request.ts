// Internal request → Anthropic Messages API request (POST {root}/v1/messages).
// Choices the OpenAI shape leaves to us:
// - `response_format` json_schema with `strict: true` is Anthropic's structured output
//   (`output_config.format`) on the models that have it; otherwise (json_object, a non-strict schema, an
//   older model) it becomes a system hint with the schema rather than a warning, because the model then
//   nearly always complies (a non-strict schema may not meet the rules structured output enforces).
// - `temperature` above Anthropic's maximum of 1 is clamped, with a warning.
// - `reasoning_effort` becomes extended thinking with a budget (thinking.ts); an assistant message's
//   Anthropic reasoning goes back as its thinking blocks, signatures untouched (reasoning-blocks.ts).
// - cache_control markers stay where the client put them: parts, tools, tool results, system blocks.
// - Any other field Anthropic cannot carry (logit_bias, n>1, seed, penalties, logprobs, unknown
//   top-level fields…) is dropped with an `unsupported_parameter` warning naming it.
import type { BuiltRequest, ChatRequest, ToolDef, UpstreamTarget, Warning } from "../types";
import { isRecord } from "../content-parts";
import { convertMessages, systemField } from "./messages";
import { mergeExtensions } from "../extensions";
import { applyThinking, thinksAdaptively } from "./thinking";
import { dropFinalThinking } from "./reasoning-blocks";

export const ANTHROPIC_VERSION = "2023-06-01";

/**
 * The API root under which `/v1/…` lives. A `base_url` copied from an SDK setting often ends in `/v1`
 * (`https://api.anthropic.com/v1`): that suffix is dropped so the call is not made at `/v1/v1/messages`.
 */
export function anthropicApiRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "");
}

/** Fields translated below; every other top-level field is reported as dropped. */
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
  "stop",
  "user",
  "reasoning_effort",
  // Routes the gateway's sticky routing; caching on this wire is by prefix, so nothing is lost by not sending it.
  "prompt_cache_key",
]);

export function buildAnthropicRequest(req: ChatRequest, target: UpstreamTarget): BuiltRequest {
  const warnings: Warning[] = [];
  const { system, messages } = convertMessages(req.messages, warnings);
  const schema = strictSchema(req.response_format);
  const structured = schema !== undefined && hasStructuredOutputs(target.providerModelId);
  const hint = structured ? undefined : jsonHint(req.response_format);
  if (hint) system.push([{ type: "text", text: hint }]);

  const body: Record<string, unknown> = {
    model: target.providerModelId,
    max_tokens: req.max_completion_tokens ?? req.max_tokens ?? target.maxOutputTokens,
    messages,
  };
  const systemValue = systemField(system);
  if (systemValue !== undefined) body.system = systemValue;
  if (typeof req.temperature === "number") body.temperature = clampTemperature(req.temperature, warnings);
  if (typeof req.top_p === "number") body.top_p = req.top_p;
  if (req.stop !== undefined && req.stop !== null) body.stop_sequences = typeof req.stop === "string" ? [req.stop] : req.stop;
  if (req.stream === true) body.stream = true;
  if (typeof req.user === "string" && req.user !== "") body.metadata = { user_id: req.user };
  if (Array.isArray(req.tools) && req.tools.length > 0) {
    body.tools = req.tools.map(toAnthropicTool);
    const choice = toolChoice(req.tool_choice, req.parallel_tool_calls);
    if (choice) body.tool_choice = choice;
  }
  if (structured) body.output_config = { format: { type: "json_schema", schema } };
  applyThinking(body, req, { routeMaxOutput: target.maxOutputTokens, modelId: target.providerModelId, turns: messages }, warnings);
  if (body.thinking === undefined) dropFinalThinking(messages);
  for (const [field, value] of Object.entries(req)) {
    if (HANDLED.has(field) || !isMeaningful(field, value)) continue;
    warnings.push({ type: "unsupported_parameter", code: field, message: `"${field}" is not supported by Anthropic and was dropped.` });
  }
  mergeExtensions(body, target.extensions);

  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: req.stream === true ? "text/event-stream" : "application/json",
    "anthropic-version": ANTHROPIC_VERSION,
  };
  if (target.apiKey) headers["x-api-key"] = target.apiKey;
  return { url: `${anthropicApiRoot(target.baseUrl)}/v1/messages`, headers, body: JSON.stringify(body), warnings };
}

/** Defaults (n: 1, logprobs: false, null) change nothing, so dropping them is not worth a warning. */
function isMeaningful(field: string, value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (field === "n") return value !== 1;
  return true;
}

function clampTemperature(value: number, warnings: Warning[]): number {
  if (value <= 1) return value;
  warnings.push({
    type: "unsupported_parameter",
    code: "temperature",
    message: `Anthropic accepts temperature up to 1; ${value} was clamped to 1.`,
  });
  return 1;
}

function toAnthropicTool(tool: ToolDef): Record<string, unknown> {
  const out: Record<string, unknown> = {
    name: tool.function.name,
    input_schema: tool.function.parameters ?? { type: "object", properties: {} },
  };
  if (tool.function.description) out.description = tool.function.description;
  const cacheControl = (tool as { cache_control?: unknown }).cache_control;
  if (isRecord(cacheControl)) out.cache_control = cacheControl;
  return out;
}

function toolChoice(choice: unknown, parallel: boolean | undefined): Record<string, unknown> | undefined {
  let out: Record<string, unknown> | undefined;
  if (choice === "auto") out = { type: "auto" };
  else if (choice === "required") out = { type: "any" };
  else if (choice === "none") out = { type: "none" };
  else if (isRecord(choice) && isRecord(choice.function) && typeof choice.function.name === "string") {
    out = { type: "tool", name: choice.function.name };
  }
  if (parallel === false && out?.type !== "none") out = { ...(out ?? { type: "auto" }), disable_parallel_tool_use: true };
  return out;
}

/** Claude models with structured outputs: Sonnet and Haiku 4.5, Opus 4.1 to 4.5, and every later one. */
export function hasStructuredOutputs(modelId: string): boolean {
  return thinksAdaptively(modelId) || /claude-(sonnet|haiku)-4-5(?!\d)|claude-opus-4-[1-5](?!\d)/.test(modelId);
}

/** A strict json_schema's schema (what structured output enforces as written), else undefined. */
function strictSchema(format: ChatRequest["response_format"]): Record<string, unknown> | undefined {
  if (format?.type !== "json_schema" || !isRecord(format.json_schema) || format.json_schema.strict !== true) return undefined;
  return isRecord(format.json_schema.schema) ? format.json_schema.schema : undefined;
}

function jsonHint(format: ChatRequest["response_format"]): string | undefined {
  if (!format || format.type === "text") return undefined;
  const base = "Respond with a single valid JSON value and nothing else: no prose, no code fences.";
  if (format.type === "json_schema" && isRecord(format.json_schema) && format.json_schema.schema !== undefined) {
    return `${base} It must conform to this JSON Schema: ${JSON.stringify(format.json_schema.schema)}`;
  }
  return `${base} The value must be a JSON object.`;
}
