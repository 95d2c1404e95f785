// Merges a request's `extensions[providerId]` into an upstream body. One level deep, so that e.g.
// `{"generationConfig": {"topK": 5}}` adds to the translated generationConfig instead of replacing it.
import { isRecord } from "./content-parts";

/** Fields that define the call itself: extensions may not change the model or whether it streams. */
const PROTECTED = new Set(["model", "stream", "stream_options"]);

export function mergeExtensions(body: Record<string, unknown>, extensions: Record<string, unknown> | undefined): void {
  if (extensions === undefined) return; // the usual case: nothing to allocate
  for (const [key, value] of Object.entries(extensions)) {
    if (PROTECTED.has(key)) continue;
    const current = body[key];
    body[key] = isRecord(current) && isRecord(value) ? { ...current, ...value } : value;
  }
}
