// A chat `file` part ({type:"file", file:{file_data, filename, file_id}}) → an Anthropic block. PDFs and
// plain text are what a Messages `document` block takes inline (base64 and text sources); an image sent
// as a file is an image block. Anything else (a file_id of OpenAI's Files API, other media types) has no
// Anthropic form and is dropped by the caller with a warning.
import type { ContentPart } from "../types";
import { isRecord } from "../content-parts";
import type { AnthropicBlock } from "./messages";

interface FileData {
  mimeType: string;
  base64: boolean;
  payload: string;
}

/** `data:<mime>[;base64],<payload>`, base64 or percent-encoded. */
function parseFileData(url: string): FileData | null {
  if (!url.startsWith("data:")) return null;
  const comma = url.indexOf(",");
  if (comma < 0) return null;
  const meta = url.slice(5, comma).split(";");
  return { mimeType: (meta[0] || "text/plain").toLowerCase(), base64: meta.includes("base64"), payload: url.slice(comma + 1) };
}

function plainText(file: FileData): string | null {
  if (file.base64) return Buffer.from(file.payload, "base64").toString("utf8");
  try {
    return decodeURIComponent(file.payload);
  } catch {
    return null;
  }
}

/** The block a file part becomes, or null when Anthropic has none for it. */
export function fileToBlock(part: ContentPart): AnthropicBlock | null {
  const file = (part as { file?: unknown }).file;
  if (!isRecord(file) || typeof file.file_data !== "string") return null;
  const data = parseFileData(file.file_data);
  if (!data) return null;
  let block: AnthropicBlock;
  if (data.mimeType === "application/pdf" && data.base64) {
    block = { type: "document", source: { type: "base64", media_type: "application/pdf", data: data.payload } };
  } else if (data.mimeType === "text/plain") {
    const text = plainText(data);
    if (text === null) return null;
    block = { type: "document", source: { type: "text", media_type: "text/plain", data: text } };
  } else if (data.mimeType.startsWith("image/") && data.base64) {
    return { type: "image", source: { type: "base64", media_type: data.mimeType, data: data.payload } };
  } else return null;
  if (typeof file.filename === "string" && file.filename !== "") block.title = file.filename;
  // A Messages client's document options, when its dialect's translation kept them on the part.
  const { citations, context } = part as { citations?: unknown; context?: unknown };
  if (isRecord(citations)) block.citations = citations;
  if (typeof context === "string") block.context = context;
  return block;
}
