// /v1/responses request → the internal chat request. Pure: what cannot be carried is dropped and
// reported as a warning (CONTRACT §2), for the pipeline to add to routing_metadata.warnings.
import type { ChatMessage, ChatRequest, ContentPart, ToolCall, ToolDef, Warning } from "../../providers/types";
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
  reasoning: { effort: string | null; summary: null };
  user: string | null;
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

function itemsToMessages(items: ResponsesInputItem[], warnings: Warning[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  items.forEach((item, i) => {
    const where = `input[${i}]`;
    if (!("type" in item) || item.type === undefined || item.type === "message") {
      messages.push(messageFromItem(item as Extract<ResponsesInputItem, { role: string }>, where, warnings));
      return;
    }
    if (item.type === "function_call") {
      const call: ToolCall = { id: item.call_id, type: "function", function: { name: item.name, arguments: item.arguments } };
      // Consecutive calls (and the assistant text just before them) are one assistant turn in chat.
      const last = messages[messages.length - 1];
      if (last && last.role === "assistant") last.tool_calls = [...(last.tool_calls ?? []), call];
      else messages.push({ role: "assistant", content: null, tool_calls: [call] });
      return;
    }
    if (item.type === "function_call_output") {
      let content: string;
      if (typeof item.output === "string") content = item.output;
      else {
        if (item.output.some((p) => p.type !== "input_text"))
          warnings.push(unsupported(`${where}.output`, "Only text is carried in function_call_output; other parts were dropped."));
        content = item.output.map((p) => (p.type === "input_text" ? p.text : "")).join("");
      }
      messages.push({ role: "tool", tool_call_id: item.call_id, content });
    }
    // `reasoning` items are dropped (see schema.ts).
  });
  return messages;
}

function toolsToChat(tools: NonNullable<ResponsesRequest["tools"]>, warnings: Warning[]): ToolDef[] {
  const out: ToolDef[] = [];
  tools.forEach((tool, i) => {
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
  if (c.type === "function" && typeof c.name === "string") return { type: "function", function: { name: c.name } };
  if (c.type === "allowed_tools" && Array.isArray(c.tools)) {
    const tools = c.tools.map((t: Record<string, unknown>) => ({ type: "function", function: { name: t.name } }));
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
    tools: body.tools ?? [],
    tool_choice: body.tool_choice ?? "auto",
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    temperature: body.temperature ?? null,
    top_p: body.top_p ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    metadata: body.metadata ?? {},
    store: body.store ?? false,
    text,
    reasoning: { effort: body.reasoning?.effort ?? null, summary: null },
    user: body.user ?? null,
  };
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
  return { request, warnings, echo: responsesEcho(body) };
}
