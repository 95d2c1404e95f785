// Helpers for reading the internal (OpenAI-shaped) message content when translating it to another
// wire protocol.
import type { ChatMessage, ContentPart, ImagePart, TextPart } from "./types";

export interface DataUrl {
  mimeType: string;
  data: string;
}

/** Splits `data:<mime>;base64,<data>`; null for anything else (plain URLs, non-base64 data URLs). */
export function parseDataUrl(url: string): DataUrl | null {
  if (!url.startsWith("data:")) return null;
  const comma = url.indexOf(",");
  if (comma < 0) return null;
  const meta = url.slice(5, comma).split(";");
  if (!meta.includes("base64")) return null;
  return { mimeType: meta[0] || "application/octet-stream", data: url.slice(comma + 1) };
}

export function isTextPart(part: ContentPart): part is TextPart {
  return part.type === "text" && typeof (part as TextPart).text === "string";
}

export function isImagePart(part: ContentPart): part is ImagePart {
  const image = (part as ImagePart).image_url;
  return part.type === "image_url" && typeof image === "object" && image !== null && typeof image.url === "string";
}

/** The message content as parts (a string becomes one text part; null none). */
export function contentParts(content: ChatMessage["content"]): ContentPart[] {
  if (content === null || content === undefined) return [];
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  return content;
}

/** All text of a message joined, for roles whose target field is plain text (system, tool results). */
export function contentText(content: ChatMessage["content"]): string {
  return contentParts(content)
    .filter(isTextPart)
    .map((p) => p.text)
    .join("\n");
}

/** Tool-call arguments (a JSON string) as an object; a model's malformed JSON is kept under `_raw`. */
export function parseToolArguments(args: string): Record<string, unknown> {
  if (args.trim() === "") return {};
  try {
    const parsed: unknown = JSON.parse(args);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    return { value: parsed };
  } catch {
    return { _raw: args };
  }
}

/** Guesses an image MIME type from a URL's extension (Gemini's fileData wants one). */
export function mimeTypeFromUrl(url: string): string {
  const path = url.split("?")[0]?.toLowerCase() ?? "";
  if (path.endsWith(".png")) return "image/png";
  if (path.endsWith(".webp")) return "image/webp";
  if (path.endsWith(".gif")) return "image/gif";
  if (path.endsWith(".heic")) return "image/heic";
  return "image/jpeg";
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
