// Chat annotations → Responses output_text annotations. Chat nests a citation under `url_citation`
// (issue 55 convention 8); Responses writes the same fields flat on the annotation.
import { isRecord } from "../../providers/content-parts";

/** The Responses annotation types a chat annotation may already have the shape of. */
const FLAT_TYPES = new Set(["file_citation", "container_file_citation", "file_path"]);

export interface UrlCitation {
  type: "url_citation";
  url: string;
  title: string;
  start_index: number;
  end_index: number;
}

/** One chat annotation as Responses writes it; null for a shape Responses has no annotation for. */
export function responsesAnnotation(annotation: unknown): unknown {
  if (!isRecord(annotation) || typeof annotation.type !== "string") return null;
  if (annotation.type === "url_citation" && isRecord(annotation.url_citation)) {
    const c = annotation.url_citation;
    if (typeof c.url !== "string") return null;
    return {
      type: "url_citation",
      url: c.url,
      title: typeof c.title === "string" ? c.title : "",
      start_index: typeof c.start_index === "number" ? c.start_index : 0,
      end_index: typeof c.end_index === "number" ? c.end_index : 0,
    } satisfies UrlCitation;
  }
  return FLAT_TYPES.has(annotation.type) ? annotation : null;
}

/** A message's (or a delta's) annotations in Responses' shape, in order. */
export function responsesAnnotations(annotations: unknown): unknown[] {
  if (!Array.isArray(annotations)) return [];
  return annotations.map(responsesAnnotation).filter((a) => a !== null);
}
