// Internal messages → Anthropic `system` + alternating `messages` of content blocks. System and
// developer messages are hoisted into `system` wherever they appear (Anthropic has no mid-conversation
// system role); tool results become `tool_result` blocks in a user turn; consecutive same-role turns
// are merged because the API requires roles to alternate.
import type { ChatMessage, ContentPart, Warning } from "../types";
import { contentParts, contentText, isImagePart, isRecord, isTextPart, parseDataUrl, parseToolArguments } from "../content-parts";

export type AnthropicBlock = Record<string, unknown>;

export interface AnthropicTurn {
  role: "user" | "assistant";
  content: AnthropicBlock[];
}

export interface ConvertedMessages {
  system: string[];
  messages: AnthropicTurn[];
}

export function convertMessages(messages: ChatMessage[], warnings: Warning[]): ConvertedMessages {
  const system: string[] = [];
  const turns: AnthropicTurn[] = [];
  for (const message of messages) {
    if (message.role === "system" || message.role === "developer") {
      const text = contentText(message.content);
      if (text !== "") system.push(text);
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

function toTurn(message: ChatMessage, warnings: Warning[]): AnthropicTurn {
  if (message.role === "tool") {
    const block: AnthropicBlock = {
      type: "tool_result",
      tool_use_id: message.tool_call_id ?? "",
      content: toolResultContent(message, warnings),
    };
    return { role: "user", content: [block] };
  }
  const content = contentParts(message.content).flatMap((part) => partToBlocks(part, warnings));
  if (message.role === "assistant") {
    for (const call of message.tool_calls ?? []) {
      content.push({ type: "tool_use", id: call.id, name: call.function.name, input: parseToolArguments(call.function.arguments) });
    }
    return { role: "assistant", content };
  }
  return { role: "user", content };
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
  warnings.push({
    type: "unsupported_parameter",
    code: `content.${part.type}`,
    message: `Content parts of type "${part.type}" are not supported by this provider and were dropped.`,
  });
  return [];
}

/** Clients that target Anthropic through OpenAI shapes mark prompt-cache breakpoints on parts. */
function withCacheControl(block: AnthropicBlock, part: ContentPart): AnthropicBlock {
  const cacheControl = (part as Record<string, unknown>).cache_control;
  if (isRecord(cacheControl)) block.cache_control = cacheControl;
  return block;
}

/** The API wants tool_result blocks before any other content of the user turn that answers them. */
function toolResultsFirst(turn: AnthropicTurn): void {
  const results = turn.content.filter((b) => b.type === "tool_result");
  if (results.length === 0) return;
  turn.content = [...results, ...turn.content.filter((b) => b.type !== "tool_result")];
}
