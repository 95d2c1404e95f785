import { describe, expect, test } from "bun:test";
import { buildCatalog } from "../../../src/catalog/build";
import { renderByokTiers, renderModel, renderModelList } from "../../../src/catalog/views";
import type { FileConfig } from "../../../src/config/schema";

const route = (provider: string, id: string, input: number, output: number, extra: Record<string, unknown> = {}) => ({
  provider,
  provider_model_id: id,
  input_price: input,
  output_price: output,
  ...extra,
});

// A small replace-mode catalog so the lists are exact.
const FILE: FileConfig = {
  catalog: "replace",
  providers: {
    keyed: { adapter: "openai", base_url: "http://127.0.0.1:9001/v1", api_key: "sk-keyed", data_policy: "zdr" },
    keyless: { adapter: "openai", base_url: "http://127.0.0.1:9002/v1" },
    openai: { adapter: "openai", base_url: "http://127.0.0.1:9003/v1", api_key: "sk-openai" },
  },
  models: {
    "acme/both": {
      author: "acme",
      routes: [route("keyed", "both-a", 1, 2, { context_window: 32000 }), route("keyless", "both-b", 0.5, 1, { context_window: 200000 })],
    },
    "acme/keyless-only": { routes: [route("keyless", "k", 1, 1)] },
    "openai/pro-x": { routes: [route("openai", "pro-x", 30, 180, { endpoints: ["responses"], context_window: 400000 })] },
  },
};

const catalog = buildCatalog({ file: FILE, credentialEnv: {}, now: 1_000_000 });
const withKey = (p: string) => catalog.providers.get(p)?.platformKey != null;

describe("GET /v1/models view", () => {
  test("lists only models with a routable provider, and only those providers", () => {
    const list = renderModelList(catalog, { isRoutable: withKey, now: 1_000_000 + 61_500 });
    expect(list.object).toBe("list");
    expect(list.catalog_version).toBe(catalog.version);
    expect(list.catalog_age_seconds).toBe(61);
    expect(list.data.map((m) => m.id)).toEqual(["acme/both", "openai/pro-x"]);
    const both = list.data[0]!;
    expect(both).toEqual({
      id: "acme/both",
      object: "model",
      created: 0,
      owned_by: "acme",
      context_window: 32000,
      supported_endpoints: ["chat_completions", "responses"],
      providers: [{ name: "keyed", input_price: 1, output_price: 2, data_policy: "zdr" }],
    });
  });

  test("context_window is the largest across the routable routes", () => {
    const list = renderModelList(catalog, { isRoutable: () => true });
    expect(list.data.find((m) => m.id === "acme/both")!.context_window).toBe(200000);
    expect(list.data.map((m) => m.id)).toEqual(["acme/both", "acme/keyless-only", "openai/pro-x"]);
  });

  test("a model served only by the Responses API is listed too: the gateway serves it to chat clients over that API", () => {
    const list = renderModelList(catalog, { isRoutable: withKey });
    const pro = list.data.find((m) => m.id === "openai/pro-x")!;
    expect(pro.supported_endpoints).toEqual(["chat_completions", "responses"]);
    expect(pro.owned_by).toBe("openai");
  });

  test("a single model: retrievable by ID; undefined without a routable route", () => {
    expect(renderModel(catalog.models.get("openai/pro-x")!, { isRoutable: withKey })?.id).toBe("openai/pro-x");
    expect(renderModel(catalog.models.get("acme/keyless-only")!, { isRoutable: withKey })).toBeUndefined();
  });

  test("built-in catalog: a platform key for OpenAI alone lists OpenAI-served models only", () => {
    const c = buildCatalog({ file: {}, credentialEnv: { OPENAI_API_KEY: "sk" } });
    const list = renderModelList(c, { isRoutable: (p) => c.providers.get(p)?.platformKey != null || c.providers.get(p)?.local === true });
    expect(list.data.length).toBeGreaterThan(5);
    for (const m of list.data) for (const p of m.providers) expect(p.name).toBe("openai");
    expect(list.data.some((m) => m.id === "openai/gpt-4o")).toBe(true);
    expect(list.data.some((m) => m.id === "openai/gpt-5.5-pro")).toBe(true);
  });
});

describe("BYOK tiers view", () => {
  test("unknown or non-BYOK provider → undefined", () => {
    const c = buildCatalog({ file: {}, credentialEnv: {} });
    expect(renderByokTiers(c, "nope")).toBeUndefined();
    expect(renderByokTiers(c, "ollama")).toBeUndefined();
    const t = renderByokTiers(c, "gemini")!;
    expect(t.count).toBe(t.tiers.length);
    expect(t.tiers[0]).toEqual({ name: "free", rpm: 10, tpm: 250_000, data_policy: "none", is_default: true });
  });
});
