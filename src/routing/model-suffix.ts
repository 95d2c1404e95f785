// `acme/chat-small:ttft` carries the optimize strategy in the model ID (as OpenRouter's `:nitro`,
// `:floor`). Only IDs with exactly one colon and a known suffix qualify, so fine-tune IDs such as
// `ft:gpt-4o:acme:x` (several colons) and IDs whose single colon is part of the name pass unchanged.
import type { Optimize } from "./types";

const SUFFIXES: ReadonlyMap<string, Optimize> = new Map<string, Optimize>([
  ["cost", "cost"],
  ["cost-focus", "cost-focus"],
  ["ttft", "ttft"],
  ["ttft-focus", "ttft-focus"],
  ["tps", "tps"],
  ["tps-focus", "tps-focus"],
  ["balanced", "balanced"],
  ["floor", "cost"],
  ["nitro", "tps"],
]);

export interface ParsedModelId {
  /** The ID without the suffix (the whole ID when there is none). */
  model: string;
  /** The strategy the suffix names; absent when the ID carries none. */
  optimize?: Optimize;
}

/**
 * Splits a strategy suffix off a model ID. An explicit `gateway.routing.optimize` wins over the suffix
 * (the field is the gateway's own, documented way); the suffix wins over the workspace default.
 */
export function parseModelSuffix(id: string): ParsedModelId {
  const colon = id.indexOf(":");
  if (colon <= 0 || colon !== id.lastIndexOf(":")) return { model: id };
  const optimize = SUFFIXES.get(id.slice(colon + 1));
  if (optimize === undefined) return { model: id };
  return { model: id.slice(0, colon), optimize };
}
