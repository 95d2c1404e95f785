// An Anthropic text block's `citations` → chat `annotations`, each spanning that block's text within the
// message's joined content. A web search result has a URL: it is OpenAI's url_citation, which chat
// clients render. Document citations (char_location, page_location, content_block_location,
// search_result_location) point into the request's documents and have no URL: they are
// `anthropic_citation` annotations with the same span. Both carry the original under `anthropic`, so the
// Messages dialect can give it back exactly.
import { isRecord } from "../content-parts";

export interface Span {
  start: number;
  end: number;
}

export function citationAnnotation(citation: unknown, span: Span): Record<string, unknown> | null {
  if (!isRecord(citation) || typeof citation.type !== "string") return null;
  if (citation.type === "web_search_result_location" && typeof citation.url === "string") {
    const title = typeof citation.title === "string" ? citation.title : "";
    return {
      type: "url_citation",
      url_citation: { url: citation.url, title, start_index: span.start, end_index: span.end },
      anthropic: citation,
    };
  }
  return { type: "anthropic_citation", start_index: span.start, end_index: span.end, anthropic: citation };
}

/** A block's citations as annotations (those that are not objects are left out). */
export function citationAnnotations(citations: unknown, span: Span): Record<string, unknown>[] {
  if (!Array.isArray(citations)) return [];
  return citations.flatMap((c): Record<string, unknown>[] => {
    const annotation = citationAnnotation(c, span);
    return annotation ? [annotation] : [];
  });
}
