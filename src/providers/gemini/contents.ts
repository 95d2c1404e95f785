// Internal messages → Gemini `systemInstruction` + `contents` (roles "user" and "model").
// Tool results become functionResponse parts in a user turn; Gemini names the function there, and
// the name is found through the tool_call_id of the assistant message that made the call; media a
// result carries follows it as parts of the same turn. Parts are built field by field, so nothing
// Gemini does not know (cache_control markers: its caching is implicit) reaches the body.
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
import { modelParts, signCurrentTurn } from "./thoughts";

export type GeminiPart = Record<string, unknown>;

export interface GeminiContent {
  role: "user" | "model";
  parts: GeminiPart[];
}

export interface ConvertedContents {
  systemInstruction?: { parts: { text: string }[] };
  contents: GeminiContent[];
}

/** `signCalls`: the model checks the current turn's signatures (Gemini 3). */
export function convertContents(messages: ChatMessage[], warnings: Warning[], signCalls = false): ConvertedContents {
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
  if (signCalls) signCurrentTurn(contents);
  const out: ConvertedContents = { contents };
  if (system.length > 0) out.systemInstruction = { parts: [{ text: system.join("\n\n") }] };
  return out;
}

function toContent(message: ChatMessage, toolNames: Map<string, string>, warnings: Warning[]): GeminiContent {
  if (message.role === "tool") {
    const id = message.tool_call_id ?? "";
    const name = toolNames.get(id) ?? (typeof message.name === "string" ? message.name : id);
    const media = contentParts(message.content)
      .filter((part) => !isTextPart(part))
      .flatMap((part) => toParts(part, warnings));
    return { role: "user", parts: [{ functionResponse: { name, response: functionResponse(contentText(message.content)) } }, ...media] };
  }
  const parts = contentParts(message.content).flatMap((part) => toParts(part, warnings));
  if (message.role === "assistant") {
    const calls = (message.tool_calls ?? []).map((call) => ({
      id: call.id,
      part: { functionCall: { name: call.function.name, args: parseToolArguments(call.function.arguments) } },
    }));
    return { role: "model", parts: modelParts(message, parts, calls) };
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
  const media = mediaPart(part);
  if (media) return [media];
  warnings.push({
    type: "unsupported_parameter",
    code: `content.${part.type}`,
    message: `Content parts of type "${part.type}" are not supported by this provider and were dropped.`,
  });
  return [];
}

/** Chat `file` (a data URL, bare base64, or a URL in file_data / file_id) and `input_audio` parts. */
function mediaPart(part: ContentPart): GeminiPart | undefined {
  if (part.type === "input_audio" && isRecord(part.input_audio) && typeof part.input_audio.data === "string") {
    const format = typeof part.input_audio.format === "string" ? part.input_audio.format : "wav";
    return { inlineData: { mimeType: `audio/${format}`, data: part.input_audio.data } };
  }
  if (part.type !== "file" || !isRecord(part.file)) return undefined;
  const file = part.file;
  const mimeType = mimeTypeOfFile(typeof file.filename === "string" ? file.filename : "");
  if (typeof file.file_data === "string" && file.file_data !== "") {
    const data = parseDataUrl(file.file_data);
    if (data) return { inlineData: { mimeType: data.mimeType, data: data.data } };
    if (/^(https?|gs):\/\//.test(file.file_data)) return { fileData: { mimeType, fileUri: file.file_data } };
    return { inlineData: { mimeType, data: file.file_data } };
  }
  // An uploaded file Gemini can read (its Files API or Cloud Storage); an OpenAI file id means nothing here.
  if (typeof file.file_id === "string" && /^(https?|gs):\/\//.test(file.file_id)) return { fileData: { mimeType, fileUri: file.file_id } };
  return undefined;
}

const FILE_TYPES: Record<string, string> = {
  pdf: "application/pdf",
  txt: "text/plain",
  md: "text/markdown",
  html: "text/html",
  csv: "text/csv",
  json: "application/json",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  mp3: "audio/mp3",
  wav: "audio/wav",
  mp4: "video/mp4",
};

/** A file's MIME type from its name; PDF, what chat clients send as files, when the name says nothing. */
function mimeTypeOfFile(filename: string): string {
  const dot = filename.lastIndexOf(".");
  return (dot >= 0 ? FILE_TYPES[filename.slice(dot + 1).toLowerCase()] : undefined) ?? "application/pdf";
}
