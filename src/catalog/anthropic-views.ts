// GET /v1/models in Anthropic's shapes, for clients that send `anthropic-version` (the Anthropic SDKs,
// Claude Code): ModelInfo items (`{type: "model", id, display_name, created_at, …}`), newest first, paged by `limit`,
// `after_id` and `before_id` with `has_more`, `first_id` and `last_id` as Anthropic's Models API does.
// An Anthropic model is listed under Anthropic's own ID (`claude-sonnet-4-5`), every other model under
// its canonical ID; both are names /v1/messages accepts.
import type { Catalog, ModelEntry } from "./types";
import { viewRoutes, type ModelViewOptions } from "./views";

/** Anthropic's ModelInfo. What the catalog cannot know is null as Anthropic allows (capabilities, dates). */
export interface AnthropicModel {
  type: "model";
  id: string;
  display_name: string;
  /** RFC 3339, as Anthropic writes it (`2025-09-29T00:00:00Z`). */
  created_at: string;
  max_input_tokens: number;
  max_tokens: number;
  /** Anthropic's model line (`opus`, `sonnet`, …) from the catalog family; null for other vendors' models. */
  line: string | null;
  /** Listed models are callable: the catalog holds no deprecation schedule. */
  lifecycle: "active";
  deprecated_at: null;
  retires_at: null;
  capabilities: null;
}

export interface AnthropicModelList {
  data: AnthropicModel[];
  has_more: boolean;
  first_id: string | null;
  last_id: string | null;
}

export interface AnthropicPage {
  limit?: string;
  after_id?: string;
  before_id?: string;
}

export type AnthropicPageResult = { ok: true; list: AnthropicModelList } | { ok: false; param: string; message: string };

export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 1000;

function anthropicId(model: ModelEntry): string {
  const slash = model.id.indexOf("/");
  return model.author === "anthropic" && slash > 0 ? model.id.slice(slash + 1) : model.id;
}

function anthropicLine(model: ModelEntry): string | null {
  return model.author === "anthropic" && model.family.startsWith("claude-") ? model.family.slice("claude-".length) : null;
}

function rfc3339(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** One model as Anthropic's ModelInfo, or undefined when no routable route serves it (as the OpenAI view). */
export function renderAnthropicModel(model: ModelEntry, opts: ModelViewOptions): AnthropicModel | undefined {
  const routes = viewRoutes(model, opts);
  if (routes.length === 0) return undefined;
  return {
    type: "model",
    id: anthropicId(model),
    display_name: model.displayName,
    created_at: rfc3339(model.created),
    max_input_tokens: Math.max(...routes.map((r) => r.contextWindow)),
    max_tokens: Math.max(...routes.map((r) => r.maxOutputTokens)),
    line: anthropicLine(model),
    lifecycle: "active",
    deprecated_at: null,
    retires_at: null,
    capabilities: null,
  };
}

/** Every listed model, newest first (catalog order among equals), as Anthropic lists its models. */
export function anthropicModels(catalog: Catalog, opts: ModelViewOptions): { model: ModelEntry; view: AnthropicModel }[] {
  const out: { model: ModelEntry; view: AnthropicModel }[] = [];
  for (const model of catalog.models.values()) {
    const view = renderAnthropicModel(model, opts);
    if (view) out.push({ model, view });
  }
  return out.sort((a, b) => b.model.created - a.model.created);
}

function parseLimit(raw: string | undefined): number | null {
  if (raw === undefined) return DEFAULT_PAGE_LIMIT;
  if (!/^\d{1,4}$/.test(raw)) return null;
  const n = Number(raw);
  return n >= 1 && n <= MAX_PAGE_LIMIT ? n : null;
}

/**
 * One page of `listed`. A cursor is any name of a listed model (its listed ID, canonical ID or alias);
 * `after_id` pages forward from it, `before_id` backward, and `has_more` says whether more lie that way.
 */
export function anthropicPage(
  listed: readonly { model: ModelEntry; view: AnthropicModel }[],
  page: AnthropicPage,
  resolve: Catalog["resolve"],
): AnthropicPageResult {
  const limit = parseLimit(page.limit);
  if (limit === null) return { ok: false, param: "limit", message: `'limit' must be an integer from 1 to ${MAX_PAGE_LIMIT}.` };
  if (page.after_id !== undefined && page.before_id !== undefined) {
    return { ok: false, param: "before_id", message: "Give 'after_id' or 'before_id', not both." };
  }
  const param = page.after_id !== undefined ? "after_id" : "before_id";
  const cursor = page.after_id ?? page.before_id;
  let start = 0;
  let end = Math.min(limit, listed.length);
  if (cursor !== undefined) {
    const target = resolve(cursor);
    const at = listed.findIndex((l) => l.view.id === cursor || l.model === target);
    if (at < 0) return { ok: false, param, message: `'${param}' names no listed model: '${cursor}'.` };
    [start, end] = param === "after_id" ? [at + 1, Math.min(at + 1 + limit, listed.length)] : [Math.max(0, at - limit), at];
  }
  const data = listed.slice(start, end).map((l) => l.view);
  const hasMore = param === "before_id" && cursor !== undefined ? start > 0 : end < listed.length;
  return { ok: true, list: { data, has_more: hasMore, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null } };
}
