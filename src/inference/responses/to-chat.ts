// /v1/responses request → the internal chat request. Pure: what cannot be carried is dropped and
// reported as a warning (docs/contract.md "Routing"), for the pipeline to add to routing_metadata.warnings.
import { HINTS, type ChatMessage, type ChatRequest, type RequestHints, type ToolDef, type Warning } from "../../providers/types";
import { customToolToFunction } from "./custom-tools";
import { itemsToMessages, unsupported } from "./input-items";
import type { ResponsesRequest } from "./schema";

/** The request fields a Response object repeats back (as OpenAI does), for render and stream. */
export interface ResponsesEcho {
  model: string;
  instructions: string | null;
  tools: unknown[];
  tool_choice: unknown;
  parallel_tool_calls: boolean;
  temperature: number | null;
  top_p: number | null;
  max_output_tokens: number | null;
  metadata: Record<string, string>;
  store: boolean;
  text: { format: unknown; verbosity?: string };
  reasoning: { effort: string | null; summary: string | null };
  truncation: "auto" | "disabled";
  user: string | null;
  safety_identifier?: string;
  /** The stored response this one continues (the store's follow-up), rendered as previous_response_id. */
  previousResponseId?: string;
  /** Not echoed: the `include` values, which decide what render shows (encrypted_content, logprobs). */
  include: string[];
  /** Not echoed: the custom tools sent as functions, whose calls render as custom_tool_call items. */
  customTools: string[];
}

export interface ResponsesTranslation {
  request: ChatRequest;
  warnings: Warning[];
  echo: ResponsesEcho;
}

type ResponsesTool = NonNullable<ResponsesRequest["tools"]>[number];

/** Function and custom tools reach the chat model; hosted tools run only on OpenAI's servers. */
const isSentTool = (tool: ResponsesTool): boolean => tool.type === "function" || tool.type === "custom";

function toolsToChat(tools: ResponsesTool[], warnings: Warning[]): ToolDef[] {
  const out: ToolDef[] = [];
  tools.forEach((tool, i) => {
    if (tool.type === "custom" && "name" in tool) {
      out.push(customToolToFunction(tool, `tools[${i}]`, warnings));
      return;
    }
    if (tool.type !== "function" || !("name" in tool)) {
      warnings.push(unsupported(`tools[${i}]`, `Hosted tool '${tool.type}' is not supported; it was dropped.`));
      return;
    }
    const fn: ToolDef["function"] = { name: tool.name };
    if (tool.description != null) fn.description = tool.description;
    if (tool.parameters != null) fn.parameters = tool.parameters;
    if (tool.strict != null) fn.strict = tool.strict;
    out.push({ type: "function", function: fn });
  });
  return out;
}

/** Responses tool_choice → chat tool_choice; undefined when it cannot be expressed. */
function toolChoiceToChat(choice: unknown, warnings: Warning[]): unknown {
  if (choice === undefined || choice === null) return undefined;
  if (typeof choice === "string") return choice;
  const c = choice as Record<string, unknown>;
  if ((c.type === "function" || c.type === "custom") && typeof c.name === "string") return { type: "function", function: { name: c.name } };
  if (c.type === "allowed_tools" && Array.isArray(c.tools)) {
    const tools = c.tools
      .filter((t: Record<string, unknown>) => typeof t.name === "string")
      .map((t: Record<string, unknown>) => ({ type: "function", function: { name: t.name } }));
    return { type: "allowed_tools", allowed_tools: { mode: c.mode ?? "auto", tools } };
  }
  warnings.push(unsupported("tool_choice", `tool_choice of type '${String(c.type)}' is not supported; the provider's default applies.`));
  return undefined;
}

function responseFormat(format: NonNullable<NonNullable<ResponsesRequest["text"]>["format"]>): ChatRequest["response_format"] {
  if (format.type === "text") return undefined;
  if (format.type === "json_object") return { type: "json_object" };
  const schema: Record<string, unknown> = { name: format.name, schema: format.schema };
  if (format.description !== undefined) schema.description = format.description;
  if (format.strict != null) schema.strict = format.strict;
  return { type: "json_schema", json_schema: schema };
}

export function responsesEcho(body: ResponsesRequest): ResponsesEcho {
  const text: ResponsesEcho["text"] = { format: body.text?.format ?? { type: "text" } };
  if (body.text?.verbosity !== undefined) text.verbosity = body.text.verbosity;
  return {
    model: body.model ?? "",
    instructions: body.instructions ?? null,
    // Only what was sent: a hosted tool that was dropped is not claimed (issue 55 item 5).
    tools: (body.tools ?? []).filter(isSentTool),
    tool_choice: body.tool_choice ?? "auto",
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    temperature: body.temperature ?? null,
    top_p: body.top_p ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    metadata: body.metadata ?? {},
    store: body.store ?? false,
    text,
    reasoning: { effort: body.reasoning?.effort ?? null, summary: reasoningSummary(body) ?? null },
    truncation: body.truncation ?? "disabled",
    user: body.user ?? null,
    ...(body.safety_identifier != null ? { safety_identifier: body.safety_identifier } : {}),
    include: body.include ?? [],
    customTools: (body.tools ?? []).flatMap((t) => (t.type === "custom" && "name" in t ? [t.name] : [])),
  };
}

const reasoningSummary = (body: ResponsesRequest): string | undefined =>
  body.reasoning?.summary ?? body.reasoning?.generate_summary ?? undefined;

export const LOGPROBS_INCLUDE = "message.output_text.logprobs";

/** What the Responses request says that chat has no field for (types.ts RequestHints), for the adapters that can say it. */
function hintsOf(body: ResponsesRequest): RequestHints | undefined {
  const hints: RequestHints = {};
  const summary = reasoningSummary(body);
  if (summary) hints.reasoningSummary = summary;
  if (body.include && body.include.length > 0) hints.include = [...body.include];
  return Object.keys(hints).length > 0 ? hints : undefined;
}

/** Fields chat completions take as they are, and the ones carried with a warning. */
function otherFields(body: ResponsesRequest, request: ChatRequest, warnings: Warning[]): void {
  if (body.include?.includes(LOGPROBS_INCLUDE)) {
    request.logprobs = true;
    if (body.top_logprobs != null) request.top_logprobs = body.top_logprobs;
  }
  if (body.service_tier != null) request.service_tier = body.service_tier;
  if (body.safety_identifier != null) request.safety_identifier = body.safety_identifier;
  if (body.background === true)
    warnings.push(unsupported("background", "background is not supported on this route: the response is answered in this call."));
  if (body.truncation === "auto")
    warnings.push(unsupported("truncation", "truncation 'auto' is not carried: this route does not drop input to fit the context window."));
}

/** Translates a validated Responses body. `model` is "" when `gateway.models[]` replaces it. */
export function responsesToChat(body: ResponsesRequest): ResponsesTranslation {
  const warnings: Warning[] = [];
  const messages: ChatMessage[] = [];
  if (body.instructions) messages.push({ role: "system", content: body.instructions });
  if (typeof body.input === "string") messages.push({ role: "user", content: body.input });
  else messages.push(...itemsToMessages(body.input, warnings));

  const request: ChatRequest = { model: body.model ?? "", messages };
  if (body.stream) request.stream = true;
  if (body.tools) {
    const tools = toolsToChat(body.tools, warnings);
    if (tools.length > 0) request.tools = tools;
  }
  const toolChoice = toolChoiceToChat(body.tool_choice, warnings);
  if (toolChoice !== undefined && request.tools) request.tool_choice = toolChoice;
  if (body.parallel_tool_calls != null && request.tools) request.parallel_tool_calls = body.parallel_tool_calls;
  if (body.temperature != null) request.temperature = body.temperature;
  if (body.top_p != null) request.top_p = body.top_p;
  if (body.max_output_tokens != null) request.max_tokens = body.max_output_tokens;
  if (body.text?.format) {
    const format = responseFormat(body.text.format);
    if (format) request.response_format = format;
  }
  if (body.text?.verbosity !== undefined) request.verbosity = body.text.verbosity;
  if (body.reasoning?.effort) request.reasoning_effort = body.reasoning.effort;
  if (body.user !== undefined) request.user = body.user;
  // OpenAI's cache routing key: chat completions take it too (issue 55 item 3).
  if (typeof body.prompt_cache_key === "string") request.prompt_cache_key = body.prompt_cache_key;
  otherFields(body, request, warnings);
  const hints = hintsOf(body);
  if (hints) request[HINTS] = hints;
  return { request, warnings, echo: responsesEcho(body) };
}
