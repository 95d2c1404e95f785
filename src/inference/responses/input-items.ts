// Responses input items → chat messages: messages, function and custom tool calls and their results,
// and reasoning items, whose entries go on the assistant turn they belong to (issue 55 convention 1).
import type { ReasoningDetail } from "../../providers/reasoning";
import type { ChatMessage, ContentPart, ToolCall, Warning } from "../../providers/types";
import { customArguments } from "./custom-tools";
import { detailsFromReasoningItem } from "./reasoning-items";
import type { ResponsesContentPart, ResponsesInputItem } from "./schema";

export const unsupported = (code: string, message: string): Warning => ({ type: "unsupported_parameter", code, message });

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
export function itemsToMessages(items: ResponsesInputItem[], warnings: Warning[]): ChatMessage[] {
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
