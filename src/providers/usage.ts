// Normalised token usage helpers shared by the adapters.
import type { Usage } from "./types";

export function zeroUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
}

/** A non-negative integer from an upstream field that may be missing, null or garbage. */
export function tokenCount(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}
