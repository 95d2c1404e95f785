// Chat annotations (convention 8) → the citations of a Messages text block. An annotation that carries
// Anthropic's original citation gives it back as it was; a url_citation becomes Anthropic's web search
// citation, its cited text cut from the answer's content. Others have no Anthropic shape and are left out.
import { isRecord } from "../../providers/content-parts";

/** One annotation as an Anthropic citation, or null; `content` is the message's whole text. */
export function citationOf(annotation: unknown, content: string): Record<string, unknown> | null {
  if (!isRecord(annotation)) return null;
  if (isRecord(annotation.anthropic)) return annotation.anthropic;
  const cite = annotation.url_citation;
  if (annotation.type !== "url_citation" || !isRecord(cite) || typeof cite.url !== "string") return null;
  const start = typeof cite.start_index === "number" ? cite.start_index : 0;
  const end = typeof cite.end_index === "number" ? cite.end_index : start;
  return {
    type: "web_search_result_location",
    url: cite.url,
    title: typeof cite.title === "string" ? cite.title : null,
    cited_text: content.slice(start, end),
    // Anthropic's handle on its own search result; a citation from elsewhere has none.
    encrypted_index: "",
  };
}

/** A message's annotations as citations (only those that have an Anthropic shape). */
export function citationsOf(annotations: readonly unknown[] | undefined, content: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const a of annotations ?? []) {
    const citation = citationOf(a, content);
    if (citation) out.push(citation);
  }
  return out;
}
