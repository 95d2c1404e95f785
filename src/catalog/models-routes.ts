// GET /v1/models and /v1/models/{model_id} (API key): the OpenAI list shape plus the catalog version, or
// Anthropic's shapes when the client sends `anthropic-version` (anthropic-views.ts), errors included.
// Only routable providers count; IDs may contain slashes and aliases resolve to canonical IDs.
import { Elysia, t } from "elysia";
import type { ApiKeyCache } from "../auth/key-cache";
import { allowsXApiKey, authenticate } from "../http/auth";
import type { ErrorRenderer } from "../http/edge";
import { ApiError } from "../http/errors";
import { anthropicErrorResponse } from "../inference/messages/errors";
import { anthropicModels, anthropicPage, renderAnthropicModel } from "./anthropic-views";
import type { Catalog } from "./types";
import { renderModel, renderModelList } from "./views";

export interface ModelsRouteDeps {
  catalog: Catalog;
  keys: ApiKeyCache;
}

/** A provider counts when a request could reach it: platform credential, BYOK-capable, or local. */
export function routableProviders(catalog: Catalog): (providerId: string) => boolean {
  const ok = new Set<string>();
  for (const p of catalog.providers.values()) if (p.platformKey !== null || p.byok || p.local) ok.add(p.id);
  return (id) => ok.has(id);
}

const ENDPOINTS = ["chat_completions", "responses"] as const;

/** Anthropic's SDKs and Claude Code send this header on every call; OpenAI clients never do. */
const speaksAnthropic = (request: Request): boolean => request.headers.has("anthropic-version");

const isModelsPath = (path: string): boolean => path === "/v1/models" || path.startsWith("/v1/models/");

/** An Anthropic client's error on these routes in Anthropic's shape, so its SDK raises its own typed error. */
export const modelsErrorRenderer: ErrorRenderer = (err, request, requestId) =>
  speaksAnthropic(request) && isModelsPath(new URL(request.url).pathname) ? anthropicErrorResponse(err, requestId) : undefined;

/** `?endpoint=` is accepted as OpenAI-style clients send it; an unknown value is a client error. */
function checkListEndpoint(raw: string | undefined): void {
  if (raw === undefined || (ENDPOINTS as readonly string[]).includes(raw)) return;
  throw new ApiError("invalid_parameter", `Unknown endpoint '${raw}': use chat_completions or responses.`, { param: "endpoint" });
}

function pathModelId(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ApiError("invalid_parameter", "The model ID in the path is not valid percent-encoding.", { param: "model_id" });
  }
}

const LIST_DESCRIPTION =
  "OpenAI's list shape plus `catalog_version` and `catalog_age_seconds`. With an `anthropic-version` header (and then " +
  '`x-api-key` accepted), Anthropic\'s shape instead: `{data: [{type: "model", id, display_name, created_at, ' +
  "max_input_tokens, max_tokens, line, lifecycle, …}], has_more, first_id, last_id}` (errors in Anthropic's shape too), newest first, paged by `limit` (1–1000, default 20), " +
  "`after_id` or `before_id` (any name of a listed model); Anthropic models are listed under Anthropic's own IDs " +
  "(`claude-sonnet-4-5`), others under canonical IDs. `created`/`created_at` is the model's release date, or the day " +
  "it entered the built-in catalog where no source dates it.";

const GET_DESCRIPTION =
  "Any name resolves: canonical ID, alias, provider model ID, short name, and Anthropic's dated snapshot IDs " +
  "(`claude-sonnet-4-5-20250929`) as well as undated ones. With `anthropic-version`, Anthropic's model shape.";

export function modelsRoutes(d: ModelsRouteDeps) {
  const isRoutable = routableProviders(d.catalog);
  // The catalog does not change while the server runs: each list is rendered (and serialised) once, on first use.
  let list: string | undefined;
  const listJson = () => (list ??= JSON.stringify(renderModelList(d.catalog, { isRoutable })));
  let anthropicList: ReturnType<typeof anthropicModels> | undefined;
  const anthropicListed = () => (anthropicList ??= anthropicModels(d.catalog, { isRoutable }));
  return new Elysia({ name: "models" })
    .get(
      "/v1/models",
      async ({ request, query, set }) => {
        const anthropic = speaksAnthropic(request);
        await authenticate(d.keys, request.headers, [], { allowXApiKey: allowsXApiKey("/v1/models", request.headers) });
        // Every model serves both endpoints (translated to each route's wire): the list is the same for each.
        checkListEndpoint(query.endpoint);
        set.headers["content-type"] = "application/json";
        if (!anthropic) return listJson();
        const page = anthropicPage(anthropicListed(), query, d.catalog.resolve);
        if (!page.ok) throw new ApiError("invalid_parameter", page.message, { param: page.param });
        return JSON.stringify(page.list);
      },
      {
        query: t.Object({
          endpoint: t.Optional(t.String()),
          limit: t.Optional(t.String()),
          after_id: t.Optional(t.String()),
          before_id: t.Optional(t.String()),
        }),
        detail: {
          summary: "List callable models (OpenAI list shape + catalog_version; Anthropic's with anthropic-version)",
          description: LIST_DESCRIPTION,
          tags: ["inference"],
          security: [{ bearer: [] }],
        },
      },
    )
    .get(
      "/v1/models/*",
      async ({ request, params }) => {
        const anthropic = speaksAnthropic(request);
        await authenticate(d.keys, request.headers, [], { allowXApiKey: allowsXApiKey("/v1/models/*", request.headers) });
        const id = pathModelId(params["*"]);
        const model = d.catalog.resolve(id);
        const view = model && (anthropic ? renderAnthropicModel(model, { isRoutable }) : renderModel(model, { isRoutable }));
        if (!view) throw new ApiError("model_not_found", `The model '${id}' does not exist.`, { param: "model_id" });
        return view;
      },
      {
        detail: {
          summary: "Retrieve a model (aliases and IDs with slashes accepted)",
          description: GET_DESCRIPTION,
          tags: ["inference"],
          security: [{ bearer: [] }],
        },
      },
    );
}
