// The scenarios of issue 54's "How it is measured": one market, one strategy each, with the changes and
// failure windows the router must follow. Request indices count from the first request, warm-up included.
import type { Optimize } from "../../src/routing/types";
import type { FailureWindow, ProfileChange } from "./market";

export type Target = "cost" | "ttft" | "switching" | "success" | "ceiling";

export interface Scenario {
  name: string;
  /** One line for the table's heading: what happens. */
  story: string;
  optimize: Optimize;
  maxCostPer1m?: number;
  maxTtftMs?: number;
  /** Requests before scoring starts (the router learns the market). */
  warmup: number;
  /** Scored requests after the warm-up. */
  requests: number;
  changes: ProfileChange[];
  windows: FailureWindow[];
  /** The targets this scenario is judged on (exploration bounds apply to every scenario). */
  targets: Target[];
}

export const WARMUP = 200;
export const REQUESTS = 2_000;
const MID = WARMUP + REQUESTS / 2;

function scenario(s: Omit<Scenario, "warmup" | "requests"> & Partial<Pick<Scenario, "warmup" | "requests">>): Scenario {
  return { warmup: WARMUP, requests: REQUESTS, ...s };
}

export const SCENARIOS: readonly Scenario[] = [
  scenario({
    name: "cost",
    story: "optimize cost (strict), a steady market",
    optimize: "cost",
    changes: [],
    windows: [],
    targets: ["cost"],
  }),
  scenario({
    name: "ttft",
    story: `optimize ttft; oak's TTFT 80 → 650 ms at request ${MID}`,
    optimize: "ttft",
    changes: [{ provider: "oak", atRequest: MID, ttftMs: 650 }],
    windows: [],
    targets: ["ttft", "switching"],
  }),
  scenario({
    name: "tps",
    story: `optimize tps under max_cost_per_1m 1.0; elm's throughput 350 → 90 tok/s at request ${MID}`,
    optimize: "tps",
    maxCostPer1m: 1.0,
    changes: [{ provider: "elm", atRequest: MID, tps: 90 }],
    windows: [],
    targets: ["switching", "ceiling"],
  }),
  scenario({ name: "balanced", story: "optimize balanced, a steady market", optimize: "balanced", changes: [], windows: [], targets: [] }),
  scenario({
    name: "cost-focus",
    story: "optimize cost-focus (the default), a steady market",
    optimize: "cost-focus",
    changes: [],
    windows: [],
    targets: [],
  }),
  scenario({
    name: "ttft-ceiling",
    story: "optimize cost in a pool with max_ttft_ms 400",
    optimize: "cost",
    maxTtftMs: 400,
    changes: [],
    windows: [],
    targets: ["cost", "ceiling", "success"],
  }),
  // Strict cost never explores: this one checks that exploration, too, stays under the ceiling.
  scenario({
    name: "ttft-ceiling-focus",
    story: "optimize cost-focus in a pool with max_ttft_ms 400",
    optimize: "cost-focus",
    maxTtftMs: 400,
    changes: [],
    windows: [],
    targets: ["ceiling", "success"],
  }),
  scenario({
    name: "outage",
    story:
      "optimize ttft; oak (the best) gets 429 bursts and a 500 window, then hangs; pine (next best) hangs as the router falls back to it",
    optimize: "ttft",
    changes: [],
    windows: [
      { provider: "oak", fromRequest: 400, toRequest: 450, kind: "429", retryAfterMs: 5_000 },
      { provider: "oak", fromRequest: 700, toRequest: 740, kind: "429", retryAfterMs: 2_000 },
      { provider: "oak", fromRequest: 900, toRequest: 1_100, kind: "500" },
      { provider: "oak", fromRequest: 1_400, toRequest: 1_600, kind: "hang" },
      { provider: "pine", fromRequest: 1_600, toRequest: 1_800, kind: "hang" },
    ],
    targets: ["success"],
  }),
  scenario({
    name: "recovery",
    story: `optimize ttft; oak's TTFT 80 → 650 ms at request ${WARMUP + 500}, back to 80 ms at ${WARMUP + 1_300}`,
    optimize: "ttft",
    changes: [
      { provider: "oak", atRequest: WARMUP + 500, ttftMs: 650 },
      { provider: "oak", atRequest: WARMUP + 1_300, ttftMs: 80 },
    ],
    windows: [],
    targets: ["switching"],
  }),
];
