// The config file's `routing` section (the adaptive router's tuning) and route `latency_hint` values.
import { describe, expect, test } from "bun:test";
import { ConfigError, DEFAULT_ROUTING_TUNING, loadConfig } from "../../../src/config/load";
import { writeTempConfig } from "../../support/server";

const withFile = (file: unknown) => loadConfig({ DATABASE_URL: "sqlite::memory:", SWITCHYARD_CONFIG: writeTempConfig(file) });

describe("routing tuning", () => {
  test("defaults: 5 % exploration, a 10-minute half-life, 10 minutes of stickiness", () => {
    expect(loadConfig({ DATABASE_URL: "sqlite::memory:" }).routing).toEqual(DEFAULT_ROUTING_TUNING);
    expect(DEFAULT_ROUTING_TUNING).toEqual({ exploreShare: 0.05, sampleHalfLifeMs: 600_000, stickyTtlMs: 600_000 });
  });

  test("the config file sets each, in seconds; 0 turns exploration or stickiness off", () => {
    expect(withFile({ routing: { explore_share: 0, sample_half_life_s: 30, sticky_ttl_s: 0 } }).routing).toEqual({
      exploreShare: 0,
      sampleHalfLifeMs: 30_000,
      stickyTtlMs: 0,
    });
    expect(withFile({ routing: { explore_share: 0.1 } }).routing.sampleHalfLifeMs).toBe(600_000);
  });

  test("out-of-range or unknown fields are refused, naming the field", () => {
    for (const bad of [{ explore_share: 0.9 }, { explore_share: -0.1 }, { sample_half_life_s: 0 }, { sticky_ttl_s: -1 }, { explore: 1 }]) {
      expect(() => withFile({ routing: bad })).toThrow(ConfigError);
      expect(() => withFile({ routing: bad })).toThrow(/routing/);
    }
  });

  test("a route's latency_hint is fast, normal or slow", () => {
    const file = (hint: string) => ({
      providers: { acme: { adapter: "openai", base_url: "http://127.0.0.1:1/v1" } },
      models: { "acme/m": { routes: [{ provider: "acme", provider_model_id: "m", input_price: 1, output_price: 1, latency_hint: hint }] } },
    });
    expect(() => withFile(file("fast"))).not.toThrow();
    expect(() => withFile(file("medium"))).toThrow(/latency_hint/);
  });
});
