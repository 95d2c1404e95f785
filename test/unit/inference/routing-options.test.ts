// gateway.routing → RequestRouting: every field mapped, absent ones undefined, and the checks a schema
// cannot make (catalog provider IDs, only_byok with only_platform) answered as 400s naming the field.
import { describe, expect, test } from "bun:test";
import { ApiError } from "../../../src/http/errors";
import { requestRouting } from "../../../src/inference/routing-options";
import { providerMap } from "../routing/fixtures";

const catalog = providerMap("alpha", "beta", "gamma");

function refusal(f: () => unknown): { code: string; param: string | null | undefined; message: string } {
  try {
    f();
  } catch (err) {
    if (err instanceof ApiError) return { code: err.code, param: err.extra.param, message: err.message };
    throw err;
  }
  throw new Error("expected an ApiError");
}

describe("requestRouting", () => {
  test("no gateway.routing: only the model ID's suffix, everything else undefined", () => {
    expect(requestRouting(undefined, "ttft", catalog)).toEqual({ optimize: "ttft" });
    expect(requestRouting(undefined, undefined, catalog)).toEqual({ optimize: undefined });
  });

  test("every field maps to its RequestRouting name", () => {
    const r = requestRouting(
      {
        mode: "fallback",
        optimize: "tps",
        max_cost_per_1m: 3,
        max_ttft_ms: 800,
        min_throughput_tps: 40,
        ttft_percentile: "p95",
        throughput_percentile: "p95",
        min_success_rate: 0.9,
        prefer: ["beta"],
        providers: ["alpha", "beta"],
        exclude_providers: ["gamma"],
        only_byok: true,
        require_parameters: true,
      },
      "cost",
      catalog,
    );
    expect(r).toEqual({
      mode: "fallback",
      optimize: "tps",
      maxCostPer1m: 3,
      maxTtftMs: 800,
      minThroughputTps: 40,
      ttftPercentile: "p95",
      throughputPercentile: "p95",
      minSuccessRate: 0.9,
      prefer: ["beta"],
      providers: ["alpha", "beta"],
      excludeProviders: ["gamma"],
      credential: "byok",
      requireParameters: true,
    });
  });

  test("absent fields stay undefined; the request's optimize wins over the suffix, the suffix fills it in", () => {
    const r = requestRouting({ max_ttft_ms: 500 }, "tps", catalog);
    expect(r.optimize).toBe("tps");
    expect(r.maxTtftMs).toBe(500);
    for (const k of [
      "mode",
      "maxCostPer1m",
      "minThroughputTps",
      "ttftPercentile",
      "throughputPercentile",
      "minSuccessRate",
      "prefer",
      "providers",
      "excludeProviders",
      "credential",
      "requireParameters",
    ] as const) {
      expect(r[k]).toBeUndefined();
    }
    expect(requestRouting({ optimize: "balanced" }, "tps", catalog).optimize).toBe("balanced");
  });

  test("only_platform → platform; false leaves the workspace's credential choice (undefined); require_parameters false is kept", () => {
    expect(requestRouting({ only_platform: true }, undefined, catalog).credential).toBe("platform");
    expect(requestRouting({ only_byok: false, only_platform: false }, undefined, catalog).credential).toBeUndefined();
    expect(requestRouting({ only_byok: true, only_platform: false }, undefined, catalog).credential).toBe("byok");
    expect(requestRouting({ require_parameters: false }, undefined, catalog).requireParameters).toBe(false);
  });

  test("an unknown provider in prefer, providers or exclude_providers is a 400 naming its index", () => {
    for (const [field, ids, param] of [
      ["providers", ["alpha", "beta", "nope"], "gateway.routing.providers[2]"],
      ["exclude_providers", ["Alpha"], "gateway.routing.exclude_providers[0]"],
      ["prefer", ["gamma", "nope"], "gateway.routing.prefer[1]"],
    ] as const) {
      const err = refusal(() => requestRouting({ [field]: ids }, undefined, catalog));
      expect(err).toMatchObject({ code: "invalid_parameter", param });
      expect(err.message).toContain(param);
    }
  });

  test("only_byok and only_platform both true is a 400 naming only_platform", () => {
    expect(refusal(() => requestRouting({ only_byok: true, only_platform: true }, undefined, catalog))).toMatchObject({
      code: "invalid_parameter",
      param: "gateway.routing.only_platform",
    });
  });

  test("empty lists are kept as given (no restriction from the request)", () => {
    const r = requestRouting({ providers: [], exclude_providers: [], prefer: [] }, undefined, catalog);
    expect(r).toMatchObject({ providers: [], excludeProviders: [], prefer: [] });
  });
});
