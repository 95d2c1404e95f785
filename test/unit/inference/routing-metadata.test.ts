// routing_metadata reports what the router ranked the served route on (its TTFT and throughput
// estimates) and why it led the plan (exploration, stickiness), the same for every interface: one builder.
import { describe, expect, test } from "bun:test";
import { routingMetadata } from "../../../src/inference/outcome";
import type { AttemptPlan } from "../../../src/inference/attempt";
import type { Prepared } from "../../../src/inference/prepare";
import type { Candidate } from "../../../src/routing/types";
import { model, provider, route } from "../routing/fixtures";

function candidate(over: Partial<Candidate> & { ttft: number; tps: number }): Candidate {
  const r = route({ provider: "a", input: 1, output: 1 });
  const f = (value: number) => ({ value, normalized: 1, weight: 1 });
  return {
    model: model("acme/chat", [r]),
    route: r,
    provider: provider("a"),
    routeKey: "a/a-model",
    keySource: "platform",
    estimate: {
      ttftP50Ms: over.ttft,
      ttftP95Ms: over.ttft * 2,
      tpsP50: over.tps,
      tpsP95: over.tps / 2,
      successRate: 1,
      ttftSamples: 0,
      tpsSamples: 0,
      outcomeSamples: 0,
    },
    explored: false,
    sticky: false,
    circuit: "closed",
    score: 1,
    breakdown: { cost: f(1), ttft: f(over.ttft), tps: f(over.tps) },
    ...over,
  } as Candidate;
}

const prepared = { strategy: "ttft", warnings: [] } as unknown as Prepared;
const meta = (c: Candidate) =>
  routingMetadata(prepared, { candidate: c, warnings: [], native: false } as unknown as AttemptPlan, 0, [], {});

describe("routing_metadata's ranking fields", () => {
  test("the estimates are the route's p50 estimates (not the ranking figures, which prefer and failures adjust): TTFT to an integer ms, throughput to one decimal", () => {
    const m = meta(candidate({ ttft: 412.6, tps: 87.349 }));
    expect(m).toMatchObject({ ttft_ms_estimate: 413, throughput_tps_estimate: 87.3, exploration: false, sticky: false });
  });

  test("exploration and sticky say why the route led the plan, and are false otherwise", () => {
    expect(meta(candidate({ ttft: 100, tps: 10, explored: true }))).toMatchObject({ exploration: true, sticky: false });
    expect(meta(candidate({ ttft: 100, tps: 10, sticky: true }))).toMatchObject({ exploration: false, sticky: true });
  });

  test("a candidate from a planner that does not set the flags reads as neither (never undefined)", () => {
    const c = candidate({ ttft: 100, tps: 10 }) as Partial<Candidate>;
    delete c.explored;
    delete c.sticky;
    const m = meta(c as Candidate);
    expect(m.exploration).toBe(false);
    expect(m.sticky).toBe(false);
  });

  test("the measured figures stay separate from the estimates", () => {
    const c = candidate({ ttft: 300, tps: 40 });
    const m = routingMetadata(prepared, { candidate: c, warnings: [], native: false } as unknown as AttemptPlan, 5, [], {
      ttftMs: 120.4,
      throughputTps: 61.26,
    });
    expect(m).toMatchObject({ ttft_ms: 120, throughput_tps: 61.3, ttft_ms_estimate: 300, throughput_tps_estimate: 40 });
  });
});
