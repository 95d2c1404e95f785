// Internal request → Gemini generateContent / streamGenerateContent?alt=sse request.
// - JSON mode: responseMimeType "application/json", plus responseSchema for json_schema.
// - reasoning_effort → thinkingConfig.thinkingBudget, with the budgets Google's own
//   OpenAI-compatible endpoint uses (none 0, low 1024, medium 8192, high 24576; xhigh 32768, the
//   largest budget Gemini takes); an effort outside the table is dropped with a warning.
// - Fields Gemini cannot carry (logit_bias, logprobs, user, unknown top-level fields…) are dropped
//   with an `unsupported_parameter` warning naming them.
import type { BuiltRequest, ChatRequest, ToolDef, UpstreamTarget, Warning } from "../types";
import { isRecord } from "../content-parts";
import { mergeExtensions } from "../extensions";
import { convertContents } from "./contents";
import { functionParameters, toGeminiSchema } from "./schema";

const HANDLED = new Set([
  "model",
  "messages",
  "stream",
  "stream_options",
  "tools",
  "tool_choice",
  "response_format",
  "temperature",
  "top_p",
  "max_tokens",
  "max_completion_tokens",
  "stop",
  "n",
  "seed",
  "presence_penalty",
  "frequency_penalty",
  "reasoning_effort",
  // Routes the gateway's sticky routing; caching on this wire is by prefix, so nothing is lost by not sending it.
  "prompt_cache_key",
]);

const THINKING_BUDGETS: Record<string, number> = { none: 0, minimal: 0, low: 1024, medium: 8192, high: 24576, xhigh: 32768 };

export function buildGeminiRequest(req: ChatRequest, target: UpstreamTarget): BuiltRequest {
  const warnings: Warning[] = [];
  const { systemInstruction, contents } = convertContents(req.messages, warnings);
  const body: Record<string, unknown> = { contents };
  if (systemInstruction) body.systemInstruction = systemInstruction;
  const generationConfig = generationConfigOf(req);
  if (typeof req.reasoning_effort === "string" && !(req.reasoning_effort in THINKING_BUDGETS)) {
    const known = Object.keys(THINKING_BUDGETS).join(", ");
    warnings.push({
      type: "unsupported_parameter",
      code: "reasoning_effort",
      message: `reasoning_effort "${req.reasoning_effort}" has no Gemini thinking budget (known: ${known}); it was dropped.`,
    });
  }
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
  if (Array.isArray(req.tools) && req.tools.length > 0) {
    body.tools = [{ functionDeclarations: req.tools.map(toDeclaration) }];
    const toolConfig = toolConfigOf(req.tool_choice);
    if (toolConfig) body.toolConfig = toolConfig;
  }
  for (const [field, value] of Object.entries(req)) {
    if (HANDLED.has(field) || !isMeaningful(field, value)) continue;
    warnings.push({ type: "unsupported_parameter", code: field, message: `"${field}" is not supported by Gemini and was dropped.` });
  }
  mergeExtensions(body, target.extensions);

  const model = target.providerModelId.startsWith("models/") ? target.providerModelId.slice(7) : target.providerModelId;
  const root = target.baseUrl.endsWith("/") ? target.baseUrl.slice(0, -1) : target.baseUrl;
  const url =
    req.stream === true ? `${root}/v1beta/models/${model}:streamGenerateContent?alt=sse` : `${root}/v1beta/models/${model}:generateContent`;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: req.stream === true ? "text/event-stream" : "application/json",
  };
  if (target.apiKey) headers["x-goog-api-key"] = target.apiKey;
  return { url, headers, body: JSON.stringify(body), warnings };
}

/** parallel_tool_calls: true is Gemini's behaviour anyway; defaults are not worth a warning. */
function isMeaningful(field: string, value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (field === "parallel_tool_calls") return value !== true;
  return true;
}

function generationConfigOf(req: ChatRequest): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  if (typeof req.temperature === "number") config.temperature = req.temperature;
  if (typeof req.top_p === "number") config.topP = req.top_p;
  const maxTokens = req.max_completion_tokens ?? req.max_tokens;
  if (typeof maxTokens === "number") config.maxOutputTokens = maxTokens;
  if (req.stop !== undefined && req.stop !== null) config.stopSequences = typeof req.stop === "string" ? [req.stop] : req.stop;
  if (typeof req.n === "number" && req.n > 1) config.candidateCount = req.n;
  if (typeof req.seed === "number") config.seed = req.seed;
  if (typeof req.presence_penalty === "number") config.presencePenalty = req.presence_penalty;
  if (typeof req.frequency_penalty === "number") config.frequencyPenalty = req.frequency_penalty;
  const format = req.response_format;
  if (format && format.type !== "text") {
    config.responseMimeType = "application/json";
    if (format.type === "json_schema" && isRecord(format.json_schema) && format.json_schema.schema !== undefined) {
      config.responseSchema = toGeminiSchema(format.json_schema.schema);
    }
  }
  if (typeof req.reasoning_effort === "string" && req.reasoning_effort in THINKING_BUDGETS) {
    config.thinkingConfig = { thinkingBudget: THINKING_BUDGETS[req.reasoning_effort] };
  }
  return config;
}

function toDeclaration(tool: ToolDef): Record<string, unknown> {
  const out: Record<string, unknown> = { name: tool.function.name };
  if (tool.function.description) out.description = tool.function.description;
  const parameters = functionParameters(tool.function.parameters);
  if (parameters !== undefined) out.parameters = parameters;
  return out;
}

function toolConfigOf(choice: unknown): Record<string, unknown> | undefined {
  if (choice === "auto") return { functionCallingConfig: { mode: "AUTO" } };
  if (choice === "none") return { functionCallingConfig: { mode: "NONE" } };
  if (choice === "required") return { functionCallingConfig: { mode: "ANY" } };
  if (isRecord(choice) && isRecord(choice.function) && typeof choice.function.name === "string") {
    return { functionCallingConfig: { mode: "ANY", allowedFunctionNames: [choice.function.name] } };
  }
  return undefined;
}
