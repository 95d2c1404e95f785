// /v1/responses request → the internal chat request. Pure: what cannot be carried is dropped and
// reported as a warning (CONTRACT §2), for the pipeline to add to routing_metadata.warnings.
import type { ReasoningDetail } from "../../providers/reasoning";
import {
  HINTS,
  type ChatMessage,
  type ChatRequest,
  type ContentPart,
  type RequestHints,
  type ToolCall,
  type ToolDef,
  type Warning,
} from "../../providers/types";
import { customArguments, customToolToFunction } from "./custom-tools";
import { detailsFromReasoningItem } from "./reasoning-items";
import type { ResponsesContentPart, ResponsesInputItem, ResponsesRequest } from "./schema";

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

const unsupported = (code: string, message: string): Warning => ({ type: "unsupported_parameter", code, message });

function toChatPart(part: ResponsesContentPart, where: string, warnings: Warning[]): ContentPart | null {
  switch (part.type) {
    case "input_text":
    case "output_text":
      return { type: "text", text: part.text };
    case "refusal":
      return { type: "text", text: part.refusal };
    case "input_image":
      if (!part.image_url) {
        warnings.push(unsupported(where, "input_image by file_id cannot be sent to chat providers; pass image_url (a URL or data URL)."));
        return null;
      }
      return { type: "image_url", image_url: part.detail ? { url: part.image_url, detail: part.detail } : { url: part.image_url } };
    case "input_file": {
      const file: Record<string, unknown> = {};
      if (part.file_data !== undefined) file.file_data = part.file_data;
      if (part.file_id) file.file_id = part.file_id;
      if (part.filename !== undefined) file.filename = part.filename;
      if (part.file_data === undefined && !part.file_id) {
        warnings.push(unsupported(where, "input_file needs file_data or file_id; file_url is not supported."));
        return null;
      }
      return { type: "file", file };
    }
  }
}

const isText = (p: ContentPart): p is { type: "text"; text: string } => p.type === "text";

/** Parts as plain text when they are all text (most adapters prefer a string), else the parts. */
function collapse(parts: ContentPart[]): string | ContentPart[] {
  return parts.every(isText) ? parts.map((p) => p.text).join("") : parts;
}

function messageFromItem(item: Extract<ResponsesInputItem, { role: string }>, where: string, warnings: Warning[]): ChatMessage {
  if (typeof item.content === "string") return { role: item.role, content: item.content };
  const parts = item.content
    .map((part, i) => toChatPart(part, `${where}.content[${i}]`, warnings))
    .filter((p): p is ContentPart => p !== null);
  // Assistant, system and developer turns are text-only in the chat model.
  if (item.role !== "user")
    return {
      role: item.role,
      content: parts
        .filter(isText)
        .map((p) => p.text)
        .join(""),
    };
  return { role: "user", content: collapse(parts) };
}

/** Text of a tool output: its text parts (other parts cannot be carried by every wire). */
function toolOutput(output: string | { type: string; text?: string }[], where: string, warnings: Warning[]): string {
  if (typeof output === "string") return output;
  if (output.some((p) => p.type !== "input_text"))
    warnings.push(unsupported(where, "Only text is carried in a tool call's output; other parts were dropped."));
  return output.map((p) => (p.type === "input_text" ? (p.text ?? "") : "")).join("");
}

/** Appends reasoning entries to an assistant message (the chat model keeps them before its content and calls). */
function addReasoning(message: ChatMessage, entries: ReasoningDetail[]): void {
  if (entries.length > 0) message.reasoning_details = [...(message.reasoning_details ?? []), ...entries];
}

/**
 * Reasoning items belong to the assistant output that follows them in their turn (OpenAI writes them
 * first): their entries wait in `pending` for the next assistant message or call. Consecutive calls
 * (and the assistant text just before them) are one assistant turn in chat.
 */
function itemsToMessages(items: ResponsesInputItem[], warnings: Warning[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  let pending: ReasoningDetail[] = [];
  let pendingAt = "";
  const lastAssistant = (): ChatMessage | undefined => {
    const last = messages[messages.length - 1];
    return last?.role === "assistant" ? last : undefined;
  };
  const flush = (): void => {
    if (pending.length === 0) return;
    const last = lastAssistant();
    if (last) addReasoning(last, pending);
    else warnings.push(unsupported(pendingAt, "A reasoning item with no assistant output of its turn around it was dropped."));
    pending = [];
  };
  const addCall = (call: ToolCall): void => {
    const last = lastAssistant();
    if (last) last.tool_calls = [...(last.tool_calls ?? []), call];
    else messages.push({ role: "assistant", content: null, tool_calls: [call] });
    addReasoning(lastAssistant()!, pending);
    pending = [];
  };
  items.forEach((item, i) => {
    const where = `input[${i}]`;
    if (!("type" in item) || item.type === undefined || item.type === "message") {
      const message = messageFromItem(item as Extract<ResponsesInputItem, { role: string }>, where, warnings);
      if (message.role === "assistant") {
        addReasoning(message, pending);
        pending = [];
      } else flush();
      messages.push(message);
    } else if (item.type === "reasoning") {
      const entries = detailsFromReasoningItem(item);
      if (pending.length === 0) pendingAt = where;
      if (entries) pending.push(...entries);
      else
        warnings.push(unsupported(`${where}.encrypted_content`, "This reasoning item's carried state could not be read; it was dropped."));
    } else if (item.type === "function_call") {
      addCall({ id: item.call_id, type: "function", function: { name: item.name, arguments: item.arguments } });
    } else if (item.type === "custom_tool_call") {
      addCall({ id: item.call_id, type: "function", function: { name: item.name, arguments: customArguments(item.input) } });
    } else if (item.type === "function_call_output" || item.type === "custom_tool_call_output") {
      flush();
      messages.push({ role: "tool", tool_call_id: item.call_id, content: toolOutput(item.output, `${where}.output`, warnings) });
    }
  });
  flush();
  return messages;
}

type ResponsesTool = NonNullable<ResponsesRequest["tools"]>[number];

/** Function and custom tools reach the chat model; hosted tools run only on OpenAI's servers. */
const isCarried = (tool: ResponsesTool): boolean => tool.type === "function" || tool.type === "custom";

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
    tools: (body.tools ?? []).filter(isCarried),
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
