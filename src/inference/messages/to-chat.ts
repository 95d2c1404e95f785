// /v1/messages request → the internal chat request. Pure: what cannot be carried is dropped and
// reported as a warning (docs/contract.md "Routing"), for the pipeline to add to routing_metadata.warnings. Thinking
// blocks become the assistant turn's reasoning_details and cache breakpoints stay on the parts, tool
// messages and tools that carry them (issue 55), for the wires that can send them back.
import type { ReasoningDetail } from "../../providers/reasoning";
import {
  HINTS,
  type ChatMessage,
  type ChatRequest,
  type ContentPart,
  type ToolCall,
  type ToolDef,
  type Warning,
} from "../../providers/types";
import { thinkingEntries } from "./reasoning-blocks";
import type { CacheControl, MessagesContentBlock, MessagesMessage, MessagesRequest } from "./schema";

export interface MessagesTranslation {
  request: ChatRequest;
  warnings: Warning[];
}

const unsupported = (code: string, message: string): Warning => ({ type: "unsupported_parameter", code, message });

type Block<T extends string> = Extract<MessagesContentBlock, { type: T }>;

/** A part or message with the block's cache breakpoint, when it has one (convention 7). */
function marked<T extends object>(target: T, cacheControl: CacheControl | undefined): T {
  if (cacheControl) (target as Record<string, unknown>).cache_control = cacheControl;
  return target;
}

const textPart = (block: Block<"text">): ContentPart => marked({ type: "text", text: block.text }, block.cache_control);

function imagePart(block: Block<"image">): ContentPart {
  const url = block.source.type === "base64" ? `data:${block.source.media_type};base64,${block.source.data}` : block.source.url;
  return marked({ type: "image_url", image_url: { url } }, block.cache_control);
}

function documentPart(block: Block<"document">, where: string, warnings: Warning[]): ContentPart | null {
  const { source } = block;
  if (block.citations?.enabled) {
    warnings.push(
      unsupported(
        `${where}.citations`,
        "Citations of request documents exist only on Anthropic routes; the document was sent without them.",
      ),
    );
  }
  if (source.type === "text") return marked({ type: "text", text: source.data }, block.cache_control);
  if (source.type === "base64") {
    const file: Record<string, unknown> = { file_data: `data:${source.media_type};base64,${source.data}` };
    if (block.title) file.filename = block.title;
    return marked({ type: "file", file }, block.cache_control);
  }
  warnings.push(unsupported(where, "A document by URL cannot be sent to chat providers; send it as base64."));
  return null;
}

const hasCacheControl = (part: ContentPart): boolean => (part as { cache_control?: unknown }).cache_control !== undefined;

/** Chat content for user-side blocks: a string when it is one unmarked text block, else parts. */
function userContent(parts: ContentPart[]): string | ContentPart[] {
  const only = parts[0];
  return parts.length === 1 && only?.type === "text" && !hasCacheControl(only) ? (only as { text: string }).text : parts;
}

/** Text parts as one string, unless a part carries a cache breakpoint (then they stay parts). */
function joinedText(parts: ContentPart[], separator: string): string | ContentPart[] {
  return parts.some(hasCacheControl) ? parts : parts.map((p) => (p as { text: string }).text).join(separator);
}

/**
 * A tool_result block as a `tool` message (its cache breakpoint on the message, where the Anthropic wire
 * puts it back on the block); the images and files it held go to the user message, which tool messages
 * cannot carry.
 */
function toolResultMessages(block: Block<"tool_result">, where: string, warnings: Warning[]): { tool: ChatMessage; parts: ContentPart[] } {
  const parts: ContentPart[] = [];
  const texts: ContentPart[] = [];
  if (typeof block.content === "string") texts.push({ type: "text", text: block.content });
  else {
    (block.content ?? []).forEach((inner, i) => {
      const part =
        inner.type === "text"
          ? textPart(inner)
          : inner.type === "image"
            ? imagePart(inner)
            : documentPart(inner, `${where}.content[${i}]`, warnings);
      if (part) (part.type === "text" ? texts : parts).push(part);
    });
  }
  const tool: ChatMessage = { role: "tool", tool_call_id: block.tool_use_id, content: joinedText(texts, "") };
  return { tool: marked(tool, block.cache_control), parts };
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
      const { tool, parts: held } = toolResultMessages(block, at, warnings);
      out.push(tool);
      parts.push(...held);
    } else if (block.type === "text") parts.push(textPart(block));
    else if (block.type === "image") parts.push(imagePart(block));
    else if (block.type === "document") {
      const part = documentPart(block, at, warnings);
      if (part) parts.push(part);
    } else if (block.type === "tool_use") warnings.push(unsupported(at, "tool_use blocks belong to assistant turns; dropped."));
  });
  if (parts.length > 0) out.push({ role: "user", content: userContent(parts) });
  return out;
}

/** An assistant turn: its thinking as reasoning_details (in order), its text, its tool calls. */
function assistantTurn(blocks: MessagesContentBlock[]): ChatMessage {
  const texts: ContentPart[] = [];
  const calls: ToolCall[] = [];
  const reasoning: ReasoningDetail[] = [];
  for (const block of blocks) {
    if (block.type === "text") texts.push(textPart(block));
    else if (block.type === "tool_use") {
      calls.push({ id: block.id, type: "function", function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
    } else if (block.type === "thinking" || block.type === "redacted_thinking") reasoning.push(...thinkingEntries(block));
  }
  const content = joinedText(texts, "");
  const message: ChatMessage = { role: "assistant", content: content === "" && calls.length > 0 ? null : content };
  if (calls.length > 0) message.tool_calls = calls;
  if (reasoning.length > 0) message.reasoning_details = reasoning;
  return message;
}

/** A system turn inside `messages`: its text, where it stands (other blocks have no place in a system message). */
function systemTurn(blocks: MessagesContentBlock[], where: string, warnings: Warning[]): ChatMessage[] {
  const texts: Block<"text">[] = [];
  blocks.forEach((block, i) => {
    if (block.type === "text") texts.push(block);
    else warnings.push(unsupported(`${where}.content[${i}]`, `A system turn carries text only; the ${block.type} block was dropped.`));
  });
  const message = systemMessage(texts);
  return message ? [message] : [];
}

function messagesToChatMessages(messages: MessagesMessage[], warnings: Warning[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  messages.forEach((m, i) => {
    if (typeof m.content === "string") out.push({ role: m.role, content: m.content });
    else if (m.role === "system") out.push(...systemTurn(m.content, `messages[${i}]`, warnings));
    else if (m.role === "assistant") out.push(assistantTurn(m.content));
    else out.push(...userTurn(m.content, `messages[${i}]`, warnings));
  });
  return out;
}

/** The system prompt: a string, or text parts when a block carries a cache breakpoint. */
function systemMessage(system: NonNullable<MessagesRequest["system"]>): ChatMessage | null {
  const content = typeof system === "string" ? system : joinedText(system.map(textPart), "\n\n");
  return content === "" || (Array.isArray(content) && content.length === 0) ? null : { role: "system", content };
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
    if (tool.strict !== undefined) fn.strict = tool.strict;
    out.push(marked({ type: "function", function: fn }, tool.cache_control));
  });
  return out;
}

function applyToolChoice(choice: NonNullable<MessagesRequest["tool_choice"]>, request: ChatRequest, warnings: Warning[]): void {
  if (choice.type === "tool" && !request.tools?.some((t) => t.function.name === choice.name)) {
    // The named tool was a dropped server tool: forcing it would name a function the route never gets.
    warnings.push(unsupported("tool_choice", `tool_choice names '${choice.name}', which was dropped; it was not applied.`));
    return;
  }
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

/** Adaptive thinking's effort names; `max` is the chat model's `xhigh`. */
const ADAPTIVE_EFFORT: Readonly<Record<string, string>> = { low: "low", medium: "medium", high: "high", max: "xhigh" };

/**
 * `thinking` and `output_config.effort` as reasoning_effort (and the budget as a hint for the wires
 * that take one). Adaptive thinking without an effort thinks at Anthropic's default, high.
 */
function applyThinking(body: MessagesRequest, request: ChatRequest): void {
  const thinking = body.thinking;
  const effort = body.output_config?.effort;
  if (thinking?.type === "enabled") {
    const budget = thinking.budget_tokens ?? 0;
    request.reasoning_effort = effortFor(budget);
    if (thinking.budget_tokens !== undefined) request[HINTS] = { ...request[HINTS], thinkingBudget: budget };
  } else if (thinking?.type === "disabled") request.reasoning_effort = "none";
  else if (thinking?.type === "adaptive") request.reasoning_effort = ADAPTIVE_EFFORT[effort ?? "high"];
  else if (thinking === undefined && effort !== undefined) request.reasoning_effort = ADAPTIVE_EFFORT[effort];
}

/** Body fields only Anthropic's servers act on. */
const SERVER_FEATURES = ["context_management", "mcp_servers", "container"] as const;

/** Translates a validated Messages body. `model` is "" when `gateway.models[]` replaces it. */
export function messagesToChat(body: MessagesRequest): MessagesTranslation {
  const warnings: Warning[] = [];
  const messages: ChatMessage[] = [];
  const system = body.system === undefined ? null : systemMessage(body.system);
  if (system) messages.push(system);
  messages.push(...messagesToChatMessages(body.messages, warnings));

  const request: ChatRequest = { model: body.model ?? "", messages, max_tokens: body.max_tokens };
  if (body.stream) request.stream = true;
  if (body.tools) {
    const tools = toolsToChat(body.tools, warnings);
    if (tools.length > 0) request.tools = tools;
  }
  if (body.tool_choice && request.tools) applyToolChoice(body.tool_choice, request, warnings);
  if (body.stop_sequences && body.stop_sequences.length > 0) request.stop = body.stop_sequences;
  if (body.temperature !== undefined) request.temperature = body.temperature;
  if (body.top_p !== undefined) request.top_p = body.top_p;
  // No OpenAI equivalent: carried as an extra top-level field for the adapters that accept it.
  if (body.top_k !== undefined) request.top_k = body.top_k;
  if (body.metadata?.user_id) request.user = body.metadata.user_id;
  applyThinking(body, request);
  for (const field of SERVER_FEATURES) {
    if (body[field] !== undefined && body[field] !== null) {
      warnings.push(unsupported(field, `'${field}' is run by Anthropic's servers; it was dropped for this route.`));
    }
  }
  const format = body.output_config?.format;
  if (format) request.response_format = { type: "json_schema", json_schema: { name: "output", schema: format.schema, strict: true } };
  return { request, warnings };
}
