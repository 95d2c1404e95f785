// GET /v1/models and /v1/models/{model_id} (API key): the OpenAI list shape plus the catalog version.
// Only routable providers count; IDs may contain slashes and aliases resolve to canonical IDs.
import { Elysia, t } from "elysia";
import type { ApiKeyCache } from "../auth/key-cache";
import { authenticate } from "../http/auth";
import { ApiError } from "../http/errors";
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

export function modelsRoutes(d: ModelsRouteDeps) {
  const isRoutable = routableProviders(d.catalog);
  // The catalog does not change while the server runs: each list is rendered and serialised once.
  const lists = new Map<string, string>();
  const listJson = (endpoint: (typeof ENDPOINTS)[number]) => {
    let body = lists.get(endpoint);
    if (body === undefined) lists.set(endpoint, (body = JSON.stringify(renderModelList(d.catalog, { isRoutable, endpoint }))));
    return body;
  };
  return new Elysia({ name: "models" })
    .get(
      "/v1/models",
      async ({ request, query, set }) => {
        await authenticate(d.keys, request.headers);
        const endpoint = query.endpoint ?? "chat_completions";
        if (!(ENDPOINTS as readonly string[]).includes(endpoint)) {
          throw new ApiError("invalid_parameter", `Unknown endpoint '${endpoint}': use chat_completions or responses.`, {
            param: "endpoint",
          });
        }
        set.headers["content-type"] = "application/json";
        return listJson(endpoint as (typeof ENDPOINTS)[number]);
      },
      {
        query: t.Object({ endpoint: t.Optional(t.String()) }),
        detail: { summary: "List callable models (OpenAI list shape + catalog_version)", tags: ["inference"], security: [{ bearer: [] }] },
      },
    )
    .get(
      "/v1/models/*",
      async ({ request, params }) => {
        await authenticate(d.keys, request.headers);
        let id: string;
        try {
          id = decodeURIComponent(params["*"]);
        } catch {
          throw new ApiError("invalid_parameter", "The model ID in the path is not valid percent-encoding.", { param: "model_id" });
        }
        const model = d.catalog.resolve(id);
        const view = model && renderModel(model, { isRoutable });
        if (!view) throw new ApiError("model_not_found", `The model '${id}' does not exist.`, { param: "model_id" });
        return view;
      },
      { detail: { summary: "Retrieve a model (aliases and IDs with slashes accepted)", tags: ["inference"], security: [{ bearer: [] }] } },
    );
}
