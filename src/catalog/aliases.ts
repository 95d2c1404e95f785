// The lookup index behind Catalog.resolve(): every name a client may use for a model, in one Map.
//
// Names, strongest first: the canonical ID; the model's configured aliases; the canonical ID without its
// author prefix (`gpt-4o` → `openai/gpt-4o`); each route's provider model ID (`claude-sonnet-4-5`,
// `anthropic/claude-sonnet-4.5` on OpenRouter). A weaker name never takes a stronger one's place; among
// equals the first model in catalog order wins: config-file models before built-ins, and built-ins in
// their curated order (each vendor's flagship first), so an ambiguous short name goes to the most
// prominent model. A case-insensitive second map catches `GPT-4o`; both lookups are O(1).
// Anthropic names each snapshot `<undated ID>-YYYYMMDD` and points the undated ID at the current one, so a
// dated ID the index does not hold resolves to the Anthropic model its undated part names (served by that
// model's routes, under their own provider model IDs).
import type { ModelEntry } from "./types";

export interface AliasIndex {
  resolve(name: string): ModelEntry | undefined;
}

function shortName(id: string): string | null {
  const slash = id.indexOf("/");
  return slash > 0 ? id.slice(slash + 1) : null;
}

export function buildAliasIndex(ordered: readonly ModelEntry[]): AliasIndex {
  const exact = new Map<string, ModelEntry>();
  const folded = new Map<string, ModelEntry>();
  const claim = (name: string | null, model: ModelEntry): void => {
    if (!name) return;
    if (!exact.has(name)) exact.set(name, model);
    const lower = name.toLowerCase();
    if (!folded.has(lower)) folded.set(lower, model);
  };
  const levels: ((m: ModelEntry) => (string | null)[])[] = [
    (m) => [m.id],
    (m) => m.aliases,
    (m) => [shortName(m.id)],
    (m) => m.routes.map((r) => r.providerModelId),
  ];
  for (const names of levels) for (const m of ordered) for (const n of names(m)) claim(n, m);
  const lookup = (name: string): ModelEntry | undefined => exact.get(name) ?? folded.get(name.toLowerCase());
  return {
    resolve: (name) => lookup(name) ?? datedSnapshotOf(name, lookup),
  };
}

const DATED_SNAPSHOT = /^(.+)-20\d{6}$/;

function datedSnapshotOf(name: string, lookup: (name: string) => ModelEntry | undefined): ModelEntry | undefined {
  const m = DATED_SNAPSHOT.exec(name);
  const model = m ? lookup(m[1]!) : undefined;
  return model?.author === "anthropic" ? model : undefined;
}
