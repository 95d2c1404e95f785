// Responses citations → the chat model's `annotations` (OpenAI's chat shape). A url_citation is flat on
// this wire ({url, title, start_index, end_index}) and nested on chat ({url_citation: {…}}); its indices
// count from the start of its output_text part, the chat message's from the start of the whole content,
// so they move by the text that came before. Other kinds (file_citation, container_file_citation,
// file_path) have no chat shape and are kept as they came.
import { isRecord } from "../content-parts";

export function chatAnnotation(annotation: unknown, offset: number): unknown {
  if (!isRecord(annotation) || annotation.type !== "url_citation" || isRecord(annotation.url_citation)) return annotation;
  const { type: _type, url, title, start_index, end_index, ...rest } = annotation;
  const citation: Record<string, unknown> = { ...rest, url };
  if (title !== undefined) citation.title = title;
  if (typeof start_index === "number") citation.start_index = start_index + offset;
  if (typeof end_index === "number") citation.end_index = end_index + offset;
  return { type: "url_citation", url_citation: citation };
}
