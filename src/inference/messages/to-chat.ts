// /v1/messages request → the internal chat request. Pure: what cannot be carried is dropped and
// reported as a warning (CONTRACT §2), for the pipeline to add to routing_metadata.warnings.
import type { ChatMessage, ChatRequest, ContentPart, ToolCall, ToolDef, Warning } from "../../providers/types";
import type { MessagesContentBlock, MessagesMessage, MessagesRequest } from "./schema";

export interface MessagesTranslation {
  request: ChatRequest;
  warnings: Warning[];
}

const unsupported = (code: string, message: string): Warning => ({ type: "unsupported_parameter", code, message });

type Block<T extends string> = Extract<MessagesContentBlock, { type: T }>;

function imagePart(block: Block<"image">): ContentPart {
  const url = block.source.type === "base64" ? `data:${block.source.media_type};base64,${block.source.data}` : block.source.url;
  return { type: "image_url", image_url: { url } };
}

function documentPart(block: Block<"document">, where: string, warnings: Warning[]): ContentPart | null {
  const { source } = block;
  if (source.type === "text") return { type: "text", text: source.data };
  if (source.type === "base64") {
    const file: Record<string, unknown> = { file_data: `data:${source.media_type};base64,${source.data}` };
    if (block.title) file.filename = block.title;
    return { type: "file", file };
  }
  warnings.push(unsupported(where, "A document by URL cannot be sent to chat providers; send it as base64."));
  return null;
}

/** Chat content for user-side blocks: a string when it is one text block, else parts. */
function userContent(parts: ContentPart[]): string | ContentPart[] {
  const only = parts[0];
  return parts.length === 1 && only?.type === "text" ? (only as { text: string }).text : parts;
}

function toolResultMessages(block: Block<"tool_result">): { tool: ChatMessage; images: ContentPart[] } {
  const images: ContentPart[] = [];
  let content = "";
  if (typeof block.content === "string") content = block.content;
  else {
    for (const part of block.content ?? []) {
      if (part.type === "text") content += part.text;
      else images.push(imagePart(part));
    }
  }
  return { tool: { role: "tool", tool_call_id: block.tool_use_id, content }, images };
}

/**
 * A user turn. Chat requires tool results right after the assistant's tool calls, so they come
 * first as `tool` messages; the rest of the turn (and any images the results held, which tool
 * messages cannot carry) follows as one user message.
 */
function userTurn(blocks: MessagesContentBlock[], where: string, warnings: Warning[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  const parts: ContentPart[] = [];
  blocks.forEach((block, i) => {
    const at = `${where}.content[${i}]`;
    if (block.type === "tool_result") {
      const { tool, images } = toolResultMessages(block);
      out.push(tool);
      parts.push(...images);
    } else if (block.type === "text") parts.push({ type: "text", text: block.text });
    else if (block.type === "image") parts.push(imagePart(block));
    else if (block.type === "document") {
      const part = documentPart(block, at, warnings);
      if (part) parts.push(part);
    } else if (block.type === "tool_use") warnings.push(unsupported(at, "tool_use blocks belong to assistant turns; dropped."));
  });
  if (parts.length > 0) out.push({ role: "user", content: userContent(parts) });
  return out;
}

function assistantTurn(blocks: MessagesContentBlock[]): ChatMessage {
  let text = "";
  const calls: ToolCall[] = [];
  for (const block of blocks) {
    if (block.type === "text") text += block.text;
    else if (block.type === "tool_use") {
      calls.push({ id: block.id, type: "function", function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
    }
    // thinking / redacted_thinking: provider-private, dropped.
  }
  const message: ChatMessage = { role: "assistant", content: text === "" && calls.length > 0 ? null : text };
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

function messagesToChatMessages(messages: MessagesMessage[], warnings: Warning[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  messages.forEach((m, i) => {
    if (typeof m.content === "string") out.push({ role: m.role, content: m.content });
    else if (m.role === "assistant") out.push(assistantTurn(m.content));
    else out.push(...userTurn(m.content, `messages[${i}]`, warnings));
  });
  return out;
}

function toolsToChat(tools: NonNullable<MessagesRequest["tools"]>, warnings: Warning[]): ToolDef[] {
  const out: ToolDef[] = [];
  tools.forEach((tool, i) => {
    if (tool.type && tool.type !== "custom") {
      warnings.push(unsupported(`tools[${i}]`, `Server tool '${tool.type}' is not supported; it was dropped.`));
      return;
    }
    const fn: ToolDef["function"] = { name: tool.name, parameters: tool.input_schema ?? { type: "object", properties: {} } };
    if (tool.description !== undefined) fn.description = tool.description;
    out.push({ type: "function", function: fn });
  });
  return out;
}

function applyToolChoice(choice: NonNullable<MessagesRequest["tool_choice"]>, request: ChatRequest): void {
  if (choice.type === "none") request.tool_choice = "none";
  else if (choice.type === "auto") request.tool_choice = "auto";
  else if (choice.type === "any") request.tool_choice = "required";
  else request.tool_choice = { type: "function", function: { name: choice.name } };
  if ("disable_parallel_tool_use" in choice && choice.disable_parallel_tool_use) request.parallel_tool_calls = false;
}

/** Anthropic's thinking budget as the nearest OpenAI-style reasoning effort. */
function effortFor(budget: number): string {
  if (budget < 4096) return "low";
  return budget < 16384 ? "medium" : "high";
}

/** Translates a validated Messages body. `model` is "" when `gateway.models[]` replaces it. */
export function messagesToChat(body: MessagesRequest): MessagesTranslation {
  const warnings: Warning[] = [];
  const messages: ChatMessage[] = [];
  if (body.system !== undefined) {
    const system = typeof body.system === "string" ? body.system : body.system.map((b) => b.text).join("\n\n");
    if (system !== "") messages.push({ role: "system", content: system });
  }
  messages.push(...messagesToChatMessages(body.messages, warnings));

  const request: ChatRequest = { model: body.model ?? "", messages, max_tokens: body.max_tokens };
  if (body.stream) request.stream = true;
  if (body.tools) {
    const tools = toolsToChat(body.tools, warnings);
    if (tools.length > 0) request.tools = tools;
  }
  if (body.tool_choice && request.tools) applyToolChoice(body.tool_choice, request);
  if (body.stop_sequences && body.stop_sequences.length > 0) request.stop = body.stop_sequences;
  if (body.temperature !== undefined) request.temperature = body.temperature;
  if (body.top_p !== undefined) request.top_p = body.top_p;
  // No OpenAI equivalent: carried as an extra top-level field for the adapters that accept it.
  if (body.top_k !== undefined) request.top_k = body.top_k;
  if (body.metadata?.user_id) request.user = body.metadata.user_id;
  if (body.thinking?.type === "enabled") request.reasoning_effort = effortFor(body.thinking.budget_tokens ?? 0);
  return { request, warnings };
}
