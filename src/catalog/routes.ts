// The public catalog endpoints (gateway-api.md 4.2) and BYOK provider discovery (4.4). No credential.
// The catalog is read-only after start-up, so every body and its ETag are rendered once here and each
// request is a map lookup: 200 with the body, or 304 when the client already holds that ETag.
import { createHash } from "node:crypto";
import { Elysia } from "elysia";
import { ApiError, errorResponse } from "../http/errors";
import type { Catalog } from "./types";
import { renderByokProviders, renderByokTiers, renderDirectory, renderRegistryModels, renderRegistryProviders } from "./views";

/** Clients and proxies may reuse a catalog answer for a minute; the ETag makes revalidation cheap. */
export const CATALOG_CACHE_CONTROL = "public, max-age=60";

export interface CachedBody {
  body: string;
  etag: string;
}

export function cachedBody(value: unknown): CachedBody {
  const body = JSON.stringify(value);
  return { body, etag: `"${createHash("sha256").update(body).digest("hex").slice(0, 32)}"` };
}

/** RFC 9110 If-None-Match: `*`, or a list of (possibly weak) tags compared weakly. */
export function etagMatches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === "*") return true;
  const bare = (t: string) => t.trim().replace(/^W\//, "");
  return ifNoneMatch.split(",").some((t) => bare(t) === bare(etag));
}

export function cachedResponse(request: Request, cached: CachedBody): Response {
  const headers: Record<string, string> = { etag: cached.etag, "cache-control": CATALOG_CACHE_CONTROL };
  if (etagMatches(request.headers.get("if-none-match"), cached.etag)) return new Response(null, { status: 304, headers });
  return new Response(cached.body, { status: 200, headers: { ...headers, "content-type": "application/json" } });
}

const TAGS = { catalog: ["catalog"], byok: ["byok"] };

export function catalogRoutes(catalog: Catalog) {
  const providers = cachedBody(renderRegistryProviders(catalog));
  const models = cachedBody(renderRegistryModels(catalog));
  const directory = cachedBody(renderDirectory(catalog));
  const byokProviders = cachedBody(renderByokProviders(catalog));
  const byokTiers = new Map<string, CachedBody>();
  for (const id of catalog.providers.keys()) {
    const tiers = renderByokTiers(catalog, id);
    if (tiers) byokTiers.set(id, cachedBody(tiers));
  }

  // No plugin `name`: Elysia dedupes named plugins, and two catalogs (tests) must not collapse into one.
  return new Elysia()
    .get("/v1/registry/providers", ({ request }) => cachedResponse(request, providers), {
      detail: { summary: "List providers", tags: TAGS.catalog },
    })
    .get("/v1/registry/models", ({ request }) => cachedResponse(request, models), {
      detail: { summary: "List canonical models", tags: TAGS.catalog },
    })
    .get("/v1/directory/models", ({ request }) => cachedResponse(request, directory), {
      detail: { summary: "Model directory with per-provider routes and prices", tags: TAGS.catalog },
    })
    .get("/v1/byok/providers", ({ request }) => cachedResponse(request, byokProviders), {
      detail: { summary: "Providers that accept bring-your-own-key secrets", tags: TAGS.byok },
    })
    .get(
      "/v1/byok/providers/:provider/tiers",
      ({ request, params }) => {
        const cached = byokTiers.get(params.provider);
        if (!cached) return errorResponse(new ApiError("not_found", `No BYOK provider '${params.provider}'.`, { param: "provider" }));
        return cachedResponse(request, cached);
      },
      { detail: { summary: "A BYOK provider's account tiers", tags: TAGS.byok } },
    );
}
