// A candidate's grounding (Google Search, retrieval, Maps: groundingChunks + groundingSupports) and
// recitation citations (citationMetadata) → chat `url_citation` annotations. Gemini measures segments in
// UTF-8 bytes of the answer text; the chat model's indices are string indices into the message content,
// so offsets are converted against the text. Each annotation keeps Gemini's original under `gemini`.
import type { GeminiCandidateWire, GeminiGroundingChunkWire } from "./wire";

export interface UrlCitation {
  type: "url_citation";
  url_citation: { url: string; title: string; start_index: number; end_index: number };
  gemini: Record<string, unknown>;
}

/**
 * The candidate's citations against its answer `text`. `partStarts` maps a part index to the byte offset
 * where that part's text begins in `text` (for supports that name a partIndex); without one, offsets
 * are into the whole answer text, as Gemini's streams give them.
 */
export function citationsOf(candidate: GeminiCandidateWire, text: string, partStarts?: Map<number, number>): UrlCitation[] {
  const out: UrlCitation[] = [];
  const index = byteIndexer(text);
  const chunks = candidate.groundingMetadata?.groundingChunks ?? [];
  for (const support of candidate.groundingMetadata?.groundingSupports ?? []) {
    const segment = support.segment ?? {};
    const base = segment.partIndex !== undefined ? (partStarts?.get(segment.partIndex) ?? 0) : 0;
    const start = index(base + (segment.startIndex ?? 0));
    const end = index(base + (segment.endIndex ?? 0));
    for (const chunkIndex of support.groundingChunkIndices ?? []) {
      const chunk = chunks[chunkIndex];
      const source = chunk && sourceOf(chunk);
      if (!source?.uri) continue;
      out.push(citation(source.uri, source.title, start, end, { groundingChunk: chunk, groundingSupport: support }));
    }
  }
  for (const source of candidate.citationMetadata?.citationSources ?? []) {
    if (!source.uri) continue;
    out.push(citation(source.uri, source.title, index(source.startIndex ?? 0), index(source.endIndex ?? 0), { citationSource: source }));
  }
  return out;
}

/** What identifies one citation among the repeats of a stream's later chunks. */
export function citationKey(c: UrlCitation): string {
  const u = c.url_citation;
  return `${u.url}\u0000${u.start_index}\u0000${u.end_index}\u0000${"citationSource" in c.gemini ? "c" : "g"}`;
}

function sourceOf(chunk: GeminiGroundingChunkWire): { uri?: string; title?: string } | undefined {
  return chunk.web ?? chunk.retrievedContext ?? chunk.maps;
}

function citation(url: string, title: string | undefined, start: number, end: number, gemini: Record<string, unknown>): UrlCitation {
  return { type: "url_citation", url_citation: { url, title: title ?? "", start_index: start, end_index: end }, gemini };
}

/** UTF-8 byte offset → string (UTF-16) index into `text`, clamped to its length. */
function byteIndexer(text: string): (bytes: number) => number {
  // eslint-disable-next-line no-control-regex
  if (/^[\u0000-\u007f]*$/.test(text)) return (bytes) => Math.max(0, Math.min(text.length, bytes));
  return (target) => {
    let bytes = 0;
    for (let i = 0; i < text.length; i++) {
      if (bytes >= target) return i;
      const c = text.charCodeAt(i);
      if (c < 0x80) bytes += 1;
      else if (c < 0x800) bytes += 2;
      else if (c >= 0xd800 && c < 0xdc00) {
        bytes += 4;
        i++;
      } else bytes += 3;
    }
    return text.length;
  };
}
