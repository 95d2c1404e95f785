import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { buildCatalog } from "../../src/catalog/build";
import { catalogRoutes } from "../../src/catalog/routes";
import { CAPABILITY_KEYS } from "../../src/catalog/types";
import type { FileConfig } from "../../src/config/schema";

const FILE: FileConfig = {
  providers: {
    alpha: {
      adapter: "openai",
      base_url: "http://127.0.0.1:9101/v1",
      api_key: "sk-alpha-0123456789",
      display_name: "Alpha Cloud",
      data_policy: "no_training",
      byok: true,
      tiers: [
        { name: "free", rpm: 20 },
        { name: "tier-1", rpm: 500, tpm: 90000, is_default: true },
      ],
    },
  },
  models: {
    "acme/chat-small": {
      display_name: "Chat Small",
      family: "chat",
      author: "acme",
      aliases: ["chat-small"],
      capabilities: { supports_tools: true, supports_streaming: true },
      routes: [
        {
          provider: "alpha",
          provider_model_id: "chat-small-2026",
          input_price: 0.5,
          output_price: 1.5,
          cache_read_price: 0.05,
          context_window: 128000,
          max_output_tokens: 8192,
        },
        { provider: "ollama", provider_model_id: "chat-small:latest", input_price: 0, output_price: 0 },
      ],
    },
  },
};

const catalog = buildCatalog({ file: FILE, credentialEnv: {} });
const app = new Elysia().use(catalogRoutes(catalog));
const get = (path: string, headers: Record<string, string> = {}) => app.handle(new Request(`http://localhost${path}`, { headers }));
const json = async (path: string) => {
  const res = await get(path);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("application/json");
  return (await res.json()) as any;
};

const expectCapabilities = (caps: Record<string, unknown>) => {
  expect(Object.keys(caps).sort()).toEqual([...CAPABILITY_KEYS].sort());
  for (const v of Object.values(caps)) expect(typeof v).toBe("boolean");
};

describe("happy paths: shapes per gateway-api.md", () => {
  test("GET /v1/registry/providers (2.2)", async () => {
    const body = await json("/v1/registry/providers");
    expect(Object.keys(body).sort()).toEqual(["count", "providers"]);
    expect(body.count).toBe(body.providers.length);
    for (const p of body.providers) {
      expect(Object.keys(p).sort()).toEqual(["data_policy", "description", "display_name", "icon", "id"]);
      for (const v of Object.values(p)) expect(typeof v).toBe("string");
    }
    expect(body.providers.find((p: any) => p.id === "alpha")).toEqual({
      id: "alpha",
      display_name: "Alpha Cloud",
      description: "",
      icon: "",
      data_policy: "no_training",
    });
    expect(body.providers.map((p: any) => p.id)).toContain("openai");
  });

  test("GET /v1/registry/models (2.3)", async () => {
    const body = await json("/v1/registry/models");
    expect(Object.keys(body).sort()).toEqual(["count", "models"]);
    expect(body.count).toBe(body.models.length);
    for (const m of body.models) {
      expect(Object.keys(m).sort()).toEqual([
        "author",
        "capabilities",
        "display_name",
        "family",
        "has_free_provider",
        "id",
        "input_modalities",
        "output_modalities",
        "providers",
      ]);
      for (const k of ["id", "family", "display_name", "author"]) expect(typeof m[k]).toBe("string");
      expectCapabilities(m.capabilities);
      expect(m.input_modalities.length).toBeGreaterThan(0);
      expect(typeof m.has_free_provider).toBe("boolean");
      for (const p of m.providers) expect(catalog.providers.has(p)).toBe(true);
    }
    const small = body.models.find((m: any) => m.id === "acme/chat-small");
    expect(small).toMatchObject({
      family: "chat",
      display_name: "Chat Small",
      author: "acme",
      providers: ["alpha", "ollama"],
      has_free_provider: true,
      input_modalities: ["text"],
    });
    expect(small.capabilities.supports_tools).toBe(true);
    expect(body.models.find((m: any) => m.id === "openai/gpt-4o").has_free_provider).toBe(false);
  });

  test("GET /v1/directory/models (2.4), keyed by IDs that contain '/'", async () => {
    const body = await json("/v1/directory/models");
    expect(Object.keys(body).sort()).toEqual(["generated_at", "models"]);
    expect(new Date(body.generated_at).toISOString()).toBe(body.generated_at);
    const gpt = body.models["openai/gpt-4o"];
    expect(Object.keys(gpt).sort()).toEqual(["author", "display_name", "family", "providers"]);
    for (const entry of Object.values(body.models) as any[]) {
      for (const r of entry.providers) {
        expect(Object.keys(r).sort()).toEqual([
          "capabilities",
          "context_window",
          "data_policy",
          "input_modalities",
          "max_output_tokens",
          "output_modalities",
          "provider",
          "provider_model_id",
          "tiers",
          "tools",
          "updated_at",
        ]);
        expect(Number.isInteger(r.context_window) && Number.isInteger(r.max_output_tokens)).toBe(true);
        expectCapabilities(r.capabilities);
        for (const t of r.tools)
          expect(["function_calling", "web_search", "file_search", "image_generation", "code_interpreter", "mcp"]).toContain(t);
        expect(new Date(r.updated_at).toISOString()).toBe(r.updated_at);
        for (const t of r.tiers) {
          expect(Object.keys(t).sort()).toEqual([
            "cache_read_price",
            "cache_write_price",
            "input_price",
            "latency_hint",
            "name",
            "output_price",
            "price_variants",
          ]);
          expect(typeof t.input_price + typeof t.output_price + typeof t.cache_read_price).toBe("numbernumbernumber");
          expect(t.cache_write_price === null || typeof t.cache_write_price === "number").toBe(true);
          expect(Array.isArray(t.price_variants)).toBe(true);
        }
      }
    }
    const [alpha, ollama] = body.models["acme/chat-small"].providers;
    expect(alpha).toMatchObject({
      provider: "alpha",
      provider_model_id: "chat-small-2026",
      context_window: 128000,
      max_output_tokens: 8192,
      tools: ["function_calling"],
      data_policy: "no_training",
    });
    expect(alpha.tiers).toEqual([
      {
        name: "standard",
        input_price: 0.5,
        output_price: 1.5,
        cache_read_price: 0.05,
        cache_write_price: null,
        latency_hint: "normal",
        price_variants: [],
      },
    ]);
    // No cache discount: cached tokens cost the input price.
    expect(ollama.tiers[0].cache_read_price).toBe(0);
    expect(ollama.data_policy).toBe("zdr");
  });

  test("GET /v1/byok/providers", async () => {
    const body = await json("/v1/byok/providers");
    expect(Object.keys(body).sort()).toEqual(["count", "providers"]);
    expect(body.count).toBe(body.providers.length);
    for (const p of body.providers)
      expect(Object.keys(p).sort()).toEqual(["adapter", "default_tier", "display_name", "docs_url", "id", "tiers"]);
    expect(body.providers.find((p: any) => p.id === "alpha")).toEqual({
      id: "alpha",
      display_name: "Alpha Cloud",
      adapter: "openai",
      tiers: ["free", "tier-1"],
      default_tier: "tier-1",
      docs_url: "",
    });
    expect(body.providers.find((p: any) => p.id === "anthropic")).toMatchObject({ adapter: "anthropic", default_tier: "tier-1" });
    // Local servers take no keys.
    expect(body.providers.some((p: any) => p.id === "ollama")).toBe(false);
  });

  test("GET /v1/byok/providers/{provider}/tiers", async () => {
    const body = await json("/v1/byok/providers/alpha/tiers");
    expect(body).toEqual({
      tiers: [
        { name: "free", rpm: 20, tpm: null, data_policy: "no_training", is_default: false },
        { name: "tier-1", rpm: 500, tpm: 90000, data_policy: "no_training", is_default: true },
      ],
      count: 2,
    });
  });
});

describe("caching", () => {
  test("ETag and Cache-Control on every catalog answer; a matching If-None-Match gives 304", async () => {
    for (const path of [
      "/v1/registry/providers",
      "/v1/registry/models",
      "/v1/directory/models",
      "/v1/byok/providers",
      "/v1/byok/providers/openai/tiers",
    ]) {
      const first = await get(path);
      const etag = first.headers.get("etag")!;
      expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
      expect(first.headers.get("cache-control")).toBe("public, max-age=60");
      const again = await get(path, { "if-none-match": etag });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe("");
      expect(again.headers.get("etag")).toBe(etag);
      expect((await get(path, { "if-none-match": `"other", W/${etag}` })).status).toBe(304);
      expect((await get(path, { "if-none-match": '"stale"' })).status).toBe(200);
    }
  });

  test("the ETag follows the content", async () => {
    const other = new Elysia().use(catalogRoutes(buildCatalog({ file: {}, credentialEnv: {} })));
    const a = (await get("/v1/registry/models")).headers.get("etag");
    const b = (await other.handle(new Request("http://localhost/v1/registry/models"))).headers.get("etag");
    expect(a).not.toBe(b);
  });
});

describe("errors", () => {
  test("unknown BYOK provider → 404 not_found in the error envelope", async () => {
    for (const id of ["nope", "ollama"]) {
      const res = await get(`/v1/byok/providers/${id}/tiers`);
      expect(res.status).toBe(404);
      const body = (await res.json()) as any;
      expect(body.error).toMatchObject({
        code: "not_found",
        type: "invalid_request_error",
        param: "provider",
        doc_url: "/docs/errors#not_found",
        retryable: false,
      });
      expect(body.error.message).toContain(id);
    }
  });
});

describe("security", () => {
  test("catalog endpoints need no credential and ignore a bad one", async () => {
    const res = await get("/v1/registry/providers", { authorization: "Bearer ak_wrong" });
    expect(res.status).toBe(200);
  });

  test("no platform credential appears in any public body", async () => {
    for (const path of [
      "/v1/registry/providers",
      "/v1/registry/models",
      "/v1/directory/models",
      "/v1/byok/providers",
      "/v1/byok/providers/alpha/tiers",
    ]) {
      const text = await (await get(path)).text();
      expect(text).not.toContain("sk-alpha-0123456789");
      expect(text).not.toContain("api_key");
    }
  });
});
