// Internal messages → Anthropic `system` + alternating `messages` of content blocks. System and
// developer messages are hoisted into `system` wherever they appear (Anthropic has no mid-conversation
// system role); tool results become `tool_result` blocks in a user turn; consecutive same-role turns
// are merged because the API requires roles to alternate. An assistant message's Anthropic reasoning
// opens its turn as thinking blocks, and every cache_control marker stays on the block it marks.
import type { ChatMessage, ContentPart, Warning } from "../types";
import { contentParts, isImagePart, isRecord, isTextPart, parseDataUrl, parseToolArguments } from "../content-parts";
import { fileToBlock } from "./documents";
import { thinkingBlocks } from "./reasoning-blocks";

export type AnthropicBlock = Record<string, unknown>;

export interface AnthropicTurn {
  role: "user" | "assistant";
  content: AnthropicBlock[];
}

export interface ConvertedMessages {
  /** One list of text blocks per system or developer message, in order. */
  system: AnthropicBlock[][];
  messages: AnthropicTurn[];
}

export function convertMessages(messages: ChatMessage[], warnings: Warning[]): ConvertedMessages {
  const system: AnthropicBlock[][] = [];
  const turns: AnthropicTurn[] = [];
  for (const message of messages) {
    if (message.role === "system" || message.role === "developer") {
      const blocks = systemBlocks(message);
      if (blocks.length > 0) system.push(blocks);
      continue;
    }
    const turn = toTurn(message, warnings);
    if (turn.content.length === 0) continue;
    const previous = turns[turns.length - 1];
    if (previous && previous.role === turn.role) previous.content.push(...turn.content);
    else turns.push(turn);
  }
  for (const turn of turns) if (turn.role === "user") toolResultsFirst(turn);
  return { system, messages: turns };
}

/**
 * The `system` field: one string (messages joined by a blank line) unless a block carries cache_control;
 * then the blocks themselves, since a string has nowhere to put the marker.
 */
export function systemField(system: AnthropicBlock[][]): string | AnthropicBlock[] | undefined {
  if (system.length === 0) return undefined;
  const blocks = system.flat();
  if (blocks.some((b) => b.cache_control !== undefined)) return blocks;
  return system.map((message) => message.map((b) => b.text).join("\n")).join("\n\n");
}

function systemBlocks(message: ChatMessage): AnthropicBlock[] {
  const blocks = contentParts(message.content)
    .filter(isTextPart)
    .filter((p) => p.text !== "")
    .map((p) => withCacheControl({ type: "text", text: p.text }, p));
  return markLast(blocks, message);
}

function toTurn(message: ChatMessage, warnings: Warning[]): AnthropicTurn {
  if (message.role === "tool") {
    const block: AnthropicBlock = {
      type: "tool_result",
      tool_use_id: message.tool_call_id ?? "",
      content: toolResultContent(message, warnings),
    };
    return { role: "user", content: markLast([block], message) };
  }
  const content = contentParts(message.content).flatMap((part) => partToBlocks(part, warnings));
  if (message.role === "assistant") {
    for (const call of message.tool_calls ?? []) {
      content.push({ type: "tool_use", id: call.id, name: call.function.name, input: parseToolArguments(call.function.arguments) });
    }
    // Thinking blocks cannot carry cache_control, and Anthropic wants them first.
    return { role: "assistant", content: [...thinkingBlocks(message.reasoning_details), ...markLast(content, message)] };
  }
  return { role: "user", content: markLast(content, message) };
}

function toolResultContent(message: ChatMessage, warnings: Warning[]): string | AnthropicBlock[] {
  if (typeof message.content === "string" || message.content === null) return message.content ?? "";
  return contentParts(message.content).flatMap((part) => partToBlocks(part, warnings));
}

function partToBlocks(part: ContentPart, warnings: Warning[]): AnthropicBlock[] {
  if (isTextPart(part)) {
    // Anthropic rejects empty text blocks.
    if (part.text === "") return [];
    return [withCacheControl({ type: "text", text: part.text }, part)];
  }
  if (isImagePart(part)) {
    const url = part.image_url.url;
    const data = parseDataUrl(url);
    const source = data ? { type: "base64", media_type: data.mimeType, data: data.data } : { type: "url", url };
    return [withCacheControl({ type: "image", source }, part)];
  }
  const file = part.type === "file" ? fileToBlock(part) : null;
  if (file) return [withCacheControl(file, part)];
  warnings.push({
    type: "unsupported_parameter",
    code: `content.${part.type}`,
    message:
      part.type === "file"
        ? "Anthropic takes files inline as PDF or plain-text documents (or images); this file was dropped."
        : `Content parts of type "${part.type}" are not supported by this provider and were dropped.`,
  });
  return [];
}

/** Clients that target Anthropic through OpenAI shapes mark prompt-cache breakpoints on parts. */
function withCacheControl(block: AnthropicBlock, part: ContentPart): AnthropicBlock {
  const cacheControl = (part as Record<string, unknown>).cache_control;
  if (isRecord(cacheControl)) block.cache_control = cacheControl;
  return block;
}

/**
 * A message-level cache_control (how clients mark a tool result, or a message whose content is a string)
 * marks the message's last block.
 */
function markLast(blocks: AnthropicBlock[], message: ChatMessage): AnthropicBlock[] {
  const last = blocks[blocks.length - 1];
  if (last && isRecord(message.cache_control)) last.cache_control = message.cache_control;
  return blocks;
}

/** The API wants tool_result blocks before any other content of the user turn that answers them. */
function toolResultsFirst(turn: AnthropicTurn): void {
  const results = turn.content.filter((b) => b.type === "tool_result");
  if (results.length === 0) return;
  turn.content = [...results, ...turn.content.filter((b) => b.type !== "tool_result")];
}
