// Internal request → Gemini generateContent / streamGenerateContent?alt=sse request.
// - JSON mode: responseMimeType "application/json", plus responseSchema for json_schema.
// - reasoning_effort, and an Anthropic client's budget_tokens → thinkingConfig (thinking.ts).
// - An assistant message's Gemini reasoning goes back on the parts it came on (thoughts.ts).
// - web_search_options → the googleSearch tool (its grounding comes back as url_citation annotations).
// - Fields Gemini cannot carry (logit_bias, logprobs, user, unknown top-level fields…) are dropped
//   with an `unsupported_parameter` warning naming them.
import type { BuiltRequest, ChatRequest, ToolDef, UpstreamTarget, Warning } from "../types";
import { isRecord } from "../content-parts";
import { mergeExtensions } from "../extensions";
import { convertContents } from "./contents";
import { functionParameters, toGeminiSchema } from "./schema";
import { isGemini3, thinkingConfigOf } from "./thinking";

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
  "web_search_options",
  // Routes the gateway's sticky routing; caching on this wire is by prefix, so nothing is lost by not sending it.
  "prompt_cache_key",
]);

/** Gemini refuses more stop sequences than this. */
const MAX_STOP_SEQUENCES = 5;

export function buildGeminiRequest(req: ChatRequest, target: UpstreamTarget): BuiltRequest {
  const warnings: Warning[] = [];
  const model = target.providerModelId.startsWith("models/") ? target.providerModelId.slice(7) : target.providerModelId;
  const { systemInstruction, contents } = convertContents(req.messages, warnings, isGemini3(model));
  const body: Record<string, unknown> = { contents };
  if (systemInstruction) body.systemInstruction = systemInstruction;
  const generationConfig = generationConfigOf(req, warnings);
  const thinkingConfig = thinkingConfigOf(req, model, warnings);
  if (thinkingConfig) generationConfig.thinkingConfig = thinkingConfig;
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
  const tools: Record<string, unknown>[] = [];
  if (Array.isArray(req.tools) && req.tools.length > 0) {
    tools.push({ functionDeclarations: req.tools.map(toDeclaration) });
    const toolConfig = toolConfigOf(req.tool_choice);
    if (toolConfig) body.toolConfig = toolConfig;
  }
  if (isRecord(req.web_search_options)) tools.push({ googleSearch: {} });
  if (tools.length > 0) body.tools = tools;
  for (const [field, value] of Object.entries(req)) {
    if (HANDLED.has(field) || !isMeaningful(field, value)) continue;
    const message =
      field === "parallel_tool_calls"
        ? "Gemini cannot be told to make one tool call at a time; parallel_tool_calls: false was dropped."
        : `"${field}" is not supported by Gemini and was dropped.`;
    warnings.push({ type: "unsupported_parameter", code: field, message });
  }
  mergeExtensions(body, target.extensions);

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

/** parallel_tool_calls: true is Gemini's behaviour anyway; only false asks for what it cannot do. */
function isMeaningful(field: string, value: unknown): boolean {
  if (field === "parallel_tool_calls") return value === false;
  return value !== undefined && value !== null && value !== false;
}

function generationConfigOf(req: ChatRequest, warnings: Warning[]): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  if (typeof req.temperature === "number") config.temperature = req.temperature;
  if (typeof req.top_p === "number") config.topP = req.top_p;
  const maxTokens = req.max_completion_tokens ?? req.max_tokens;
  if (typeof maxTokens === "number") config.maxOutputTokens = maxTokens;
  const stop = typeof req.stop === "string" ? [req.stop] : Array.isArray(req.stop) ? req.stop : [];
  if (stop.length > 0) config.stopSequences = stop.slice(0, MAX_STOP_SEQUENCES);
  if (stop.length > MAX_STOP_SEQUENCES) {
    warnings.push({
      type: "unsupported_parameter",
      code: "stop",
      message: `Gemini takes at most ${MAX_STOP_SEQUENCES} stop sequences; the first ${MAX_STOP_SEQUENCES} were sent, the rest dropped.`,
    });
  }
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
