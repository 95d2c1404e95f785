import { describe, expect, test } from "bun:test";
import { buildCatalog } from "../../../src/catalog/build";
import { BUILTIN_DATA, parseBuiltinData } from "../../../src/catalog/builtin-data";
import type { FileConfig } from "../../../src/config/schema";

const ALPHA: FileConfig = {
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
        { name: "tier-1", rpm: 500 },
      ],
      timeout_ms: 60000,
    },
  },
  models: {
    "acme/chat-small": {
      display_name: "Chat Small",
      family: "chat",
      author: "acme",
      aliases: ["chat-small", "tiny"],
      capabilities: { supports_tools: true, supports_streaming: true },
      routes: [
        {
          provider: "alpha",
          provider_model_id: "chat-small-2026",
          input_price: 0.5,
          output_price: 1.5,
          context_window: 128000,
          max_output_tokens: 8192,
        },
      ],
    },
  },
};

const build = (file: FileConfig = {}, credentialEnv: Record<string, string> = {}) =>
  buildCatalog({ file, credentialEnv, now: 1_800_000_000_000 });

describe("aliases", () => {
  const c = build(ALPHA);

  test("canonical ID, ID without author prefix, and case-insensitive", () => {
    expect(c.resolve("openai/gpt-4o")?.id).toBe("openai/gpt-4o");
    expect(c.resolve("gpt-4o")?.id).toBe("openai/gpt-4o");
    expect(c.resolve("GPT-4o")?.id).toBe("openai/gpt-4o");
    expect(c.resolve("gpt-4o-mini")?.id).toBe("openai/gpt-4o-mini");
  });

  test("provider model IDs of any route, and configured aliases", () => {
    expect(c.resolve("anthropic/claude-sonnet-4.5")?.id).toBe("anthropic/claude-sonnet-4-5");
    expect(c.resolve("claude-sonnet-4-5")?.id).toBe("anthropic/claude-sonnet-4-5");
    expect(c.resolve("llama-3.3-70b-versatile")?.id).toBe("meta-llama/llama-3.3-70b-instruct");
    expect(c.resolve("accounts/fireworks/models/gpt-oss-120b")?.id).toBe("openai/gpt-oss-120b");
    expect(c.resolve("chat-small")?.id).toBe("acme/chat-small");
    expect(c.resolve("tiny")?.id).toBe("acme/chat-small");
    expect(c.resolve("chat-small-2026")?.id).toBe("acme/chat-small");
  });

  test("unknown names resolve to nothing", () => {
    expect(c.resolve("no-such-model")).toBeUndefined();
    expect(c.resolve("")).toBeUndefined();
  });

  test("a stronger name wins over a weaker one; config models win ties", () => {
    const file: FileConfig = {
      models: {
        // Its provider model ID is a built-in short name: the built-in keeps it.
        "acme/shadow": { routes: [{ provider: "openai", provider_model_id: "gpt-4o", input_price: 1, output_price: 1 }] },
        // Its explicit alias is a built-in short name: explicit aliases are stronger.
        "acme/claim": {
          aliases: ["gpt-4o-mini"],
          routes: [{ provider: "openai", provider_model_id: "x", input_price: 1, output_price: 1 }],
        },
      },
    };
    const cc = build(file);
    expect(cc.resolve("gpt-4o")?.id).toBe("openai/gpt-4o");
    expect(cc.resolve("gpt-4o-mini")?.id).toBe("acme/claim");
    expect(cc.resolve("openai/gpt-4o-mini")?.id).toBe("openai/gpt-4o-mini");
  });
});

describe("config merge and replace", () => {
  test("merge (the default) adds providers and models to the built-ins", () => {
    const base = build();
    const c = build(ALPHA);
    expect(c.models.size).toBe(base.models.size + 1);
    expect(c.providers.size).toBe(base.providers.size + 1);
    const alpha = c.providers.get("alpha")!;
    expect(alpha).toMatchObject({
      displayName: "Alpha Cloud",
      adapter: "openai",
      baseUrl: "http://127.0.0.1:9101/v1",
      byok: true,
      timeoutMs: 60000,
    });
    expect(alpha.platformKey).toBe("sk-alpha-0123456789");
    expect(alpha.tiers.map((t) => [t.name, t.rpm, t.tpm, t.dataPolicy, t.isDefault])).toEqual([
      ["free", 20, null, "no_training", true],
      ["tier-1", 500, null, "no_training", false],
    ]);
    const m = c.models.get("acme/chat-small")!;
    expect(m).toMatchObject({ displayName: "Chat Small", family: "chat", author: "acme", created: 0 });
    expect(m.capabilities.supports_tools).toBe(true);
    expect(m.capabilities.supports_vision).toBe(false);
    expect(m.routes[0]).toMatchObject({
      provider: "alpha",
      providerModelId: "chat-small-2026",
      inputPrice: 0.5,
      outputPrice: 1.5,
      contextWindow: 128000,
      maxOutputTokens: 8192,
      dataPolicy: "no_training",
      endpoints: ["chat_completions", "responses"],
    });
  });

  test("a config model with a built-in ID replaces it whole, in place", () => {
    const base = build();
    const c = build({
      models: {
        "openai/gpt-4o": { routes: [{ provider: "openrouter", provider_model_id: "openai/gpt-4o", input_price: 9, output_price: 9 }] },
      },
    });
    expect(c.models.size).toBe(base.models.size);
    expect([...c.models.keys()]).toEqual([...base.models.keys()]);
    expect(c.models.get("openai/gpt-4o")!.routes.map((r) => [r.provider, r.inputPrice])).toEqual([["openrouter", 9]]);
  });

  test("replace uses only the file's providers and models", () => {
    const c = build({ ...ALPHA, catalog: "replace" });
    expect([...c.providers.keys()]).toEqual(["alpha"]);
    expect([...c.models.keys()]).toEqual(["acme/chat-small"]);
    expect(c.resolve("gpt-4o")).toBeUndefined();
    expect(c.generatedAt).toBe(1_800_000_000_000);
  });

  test("replace: a provider named like a built-in inherits its defaults", () => {
    const c = build({ catalog: "replace", providers: { anthropic: { adapter: "anthropic" } } }, { ANTHROPIC_API_KEY: "sk-ant" });
    expect(c.providers.get("anthropic")).toMatchObject({
      baseUrl: "https://api.anthropic.com",
      byok: true,
      platformKey: "sk-ant",
      displayName: "Anthropic",
    });
    expect(c.models.size).toBe(0);
  });
});

describe("built-in provider overrides and credentials", () => {
  test("providers.openai.base_url moves OpenAI and keeps the rest of the row", () => {
    const c = build({ providers: { openai: { adapter: "openai", base_url: "http://127.0.0.1:9555/v1/" } } });
    const p = c.providers.get("openai")!;
    expect(p.baseUrl).toBe("http://127.0.0.1:9555/v1");
    expect(p).toMatchObject({ displayName: "OpenAI", supportsResponses: true, byok: true, defaultTier: "tier-1" });
    expect(c.models.get("openai/gpt-4o")!.routes.some((r) => r.provider === "openai")).toBe(true);
  });

  test("a config data_policy on a built-in provider applies to its built-in routes", () => {
    const c = build({ providers: { groq: { adapter: "openai", data_policy: "zdr" } } });
    const route = c.models.get("meta-llama/llama-3.3-70b-instruct")!.routes.find((r) => r.provider === "groq")!;
    expect(route.dataPolicy).toBe("zdr");
  });

  test("platform credential: api_key, then api_key_env, then <ID>_API_KEY", () => {
    const env = { OPENAI_API_KEY: "sk-env", CUSTOM_API_KEY: "sk-custom", GEMINI_API_KEY: "g-key", MY_PROV_API_KEY: "sk-mine" };
    const c = build(
      {
        providers: {
          openai: { adapter: "openai", api_key: "sk-file" },
          groq: { adapter: "openai", api_key_env: "CUSTOM_API_KEY" },
          "my-prov": { adapter: "openai", base_url: "http://127.0.0.1:1/v1" },
        },
      },
      env,
    );
    expect(c.providers.get("openai")!.platformKey).toBe("sk-file");
    expect(c.providers.get("groq")!.platformKey).toBe("sk-custom");
    expect(c.providers.get("groq")!.apiKeyEnv).toBe("CUSTOM_API_KEY");
    expect(c.providers.get("gemini")!.platformKey).toBe("g-key");
    expect(c.providers.get("my-prov")!.platformKey).toBe("sk-mine");
    expect(c.providers.get("my-prov")!.apiKeyEnv).toBe("MY_PROV_API_KEY");
    expect(c.providers.get("anthropic")!.platformKey).toBeNull();
    expect(c.providers.get("ollama")!.platformKey).toBeNull();
  });
});

describe("validation errors name the config field", () => {
  test("a route with an unknown provider", () => {
    const file: FileConfig = {
      models: { "acme/x": { routes: [{ provider: "nope", provider_model_id: "x", input_price: 1, output_price: 1 }] } },
    };
    expect(() => build(file)).toThrow(/^models\.acme\/x\.routes\[0\]\.provider: unknown provider "nope"/);
  });

  test("a built-in provider is unknown under replace unless the file names it", () => {
    const file: FileConfig = {
      catalog: "replace",
      models: { "acme/x": { routes: [{ provider: "openai", provider_model_id: "x", input_price: 1, output_price: 1 }] } },
    };
    expect(() => build(file)).toThrow("models.acme/x.routes[0].provider");
  });

  test("a new provider without base_url, an unknown endpoint, an unknown capability", () => {
    expect(() => build({ providers: { zeta: { adapter: "openai" } } })).toThrow("providers.zeta.base_url");
    const route = { provider: "openai", provider_model_id: "x", input_price: 1, output_price: 1 };
    expect(() => build({ models: { "a/b": { routes: [route, { ...route, endpoints: ["chat_completions", "embeddings"] }] } } })).toThrow(
      "models.a/b.routes[1].endpoints[1]",
    );
    expect(() => build({ models: { "a/b": { capabilities: { supports_teleport: true }, routes: [route] } } })).toThrow(
      "models.a/b.capabilities.supports_teleport",
    );
  });
});

describe("catalog version", () => {
  test("stable across builds of the same data, whatever the clock or credentials", () => {
    const a = buildCatalog({ file: ALPHA, credentialEnv: {}, now: 1 });
    const b = buildCatalog({ file: ALPHA, credentialEnv: { OPENAI_API_KEY: "sk" }, now: 2_000_000_000_000 });
    expect(a.version).toMatch(/^[0-9a-f]{16}$/);
    expect(b.version).toBe(a.version);
  });

  test("changes when the built-in data or the config changes", () => {
    const data = structuredClone(parseBuiltinData(BUILTIN_DATA));
    const base = buildCatalog({ file: {}, credentialEnv: {}, builtin: data });
    const changed = structuredClone(data);
    changed.models[0]!.routes[0]!.input_price += 0.01;
    expect(buildCatalog({ file: {}, credentialEnv: {}, builtin: changed }).version).not.toBe(base.version);
    expect(build(ALPHA).version).not.toBe(base.version);
  });

  test("generatedAt is the data's generation time in merge mode", () => {
    expect(build().generatedAt).toBe(Date.parse(parseBuiltinData(BUILTIN_DATA).generated_at));
  });
});
