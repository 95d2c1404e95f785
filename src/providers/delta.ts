// Whether a stream delta carries anything. Runs for every chunk of every stream, so it reads the five
// fields instead of allocating Object.keys(delta) (a field set to null counts: `content: null` is sent).
import type { ChunkDelta } from "./types";

export function isEmptyDelta(d: ChunkDelta): boolean {
  return d.role === undefined && d.content === undefined && d.refusal === undefined && d.tool_calls === undefined && d.extra === undefined;
}
