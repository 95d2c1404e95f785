// Internal messages → Gemini `systemInstruction` + `contents` (roles "user" and "model").
// Tool results become functionResponse parts in a user turn; Gemini names the function there, and
// the name is found through the tool_call_id of the assistant message that made the call.
import type { ChatMessage, ContentPart, Warning } from "../types";
import {
  contentParts,
  contentText,
  isImagePart,
  isRecord,
  isTextPart,
  mimeTypeFromUrl,
  parseDataUrl,
  parseToolArguments,
} from "../content-parts";

export type GeminiPart = Record<string, unknown>;

export interface GeminiContent {
  role: "user" | "model";
  parts: GeminiPart[];
}

export interface ConvertedContents {
  systemInstruction?: { parts: { text: string }[] };
  contents: GeminiContent[];
}

export function convertContents(messages: ChatMessage[], warnings: Warning[]): ConvertedContents {
  const system: string[] = [];
  const contents: GeminiContent[] = [];
  const toolNames = new Map<string, string>();
  for (const message of messages) {
    if (message.role === "system" || message.role === "developer") {
      const text = contentText(message.content);
      if (text !== "") system.push(text);
      continue;
    }
    for (const call of message.tool_calls ?? []) toolNames.set(call.id, call.function.name);
    const content = toContent(message, toolNames, warnings);
    if (content.parts.length === 0) continue;
    const previous = contents[contents.length - 1];
    // Parallel function responses must arrive together in one turn; Gemini also expects alternation.
    if (previous && previous.role === content.role) previous.parts.push(...content.parts);
    else contents.push(content);
  }
  const out: ConvertedContents = { contents };
  if (system.length > 0) out.systemInstruction = { parts: [{ text: system.join("\n\n") }] };
  return out;
}

function toContent(message: ChatMessage, toolNames: Map<string, string>, warnings: Warning[]): GeminiContent {
  if (message.role === "tool") {
    const id = message.tool_call_id ?? "";
    const name = toolNames.get(id) ?? (typeof message.name === "string" ? message.name : id);
    return { role: "user", parts: [{ functionResponse: { name, response: functionResponse(contentText(message.content)) } }] };
  }
  const parts = contentParts(message.content).flatMap((part) => toParts(part, warnings));
  if (message.role === "assistant") {
    for (const call of message.tool_calls ?? []) {
      parts.push({ functionCall: { name: call.function.name, args: parseToolArguments(call.function.arguments) } });
    }
    return { role: "model", parts };
  }
  return { role: "user", parts };
}

/** Gemini wants an object; plain results go under `output`, as its documentation suggests. */
function functionResponse(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (isRecord(parsed)) return parsed;
    return { output: parsed };
  } catch {
    return { output: text };
  }
}

function toParts(part: ContentPart, warnings: Warning[]): GeminiPart[] {
  if (isTextPart(part)) return part.text === "" ? [] : [{ text: part.text }];
  if (isImagePart(part)) {
    const url = part.image_url.url;
    const data = parseDataUrl(url);
    if (data) return [{ inlineData: { mimeType: data.mimeType, data: data.data } }];
    return [{ fileData: { mimeType: mimeTypeFromUrl(url), fileUri: url } }];
  }
  warnings.push({
    type: "unsupported_parameter",
    code: `content.${part.type}`,
    message: `Content parts of type "${part.type}" are not supported by this provider and were dropped.`,
  });
  return [];
}
