// The simulated market: seven OpenAI-compatible providers serving one model, each route with a known
// price and a true log-normal TTFT and throughput, and the world over time (profile changes, failure
// windows). The catalog is built by the real builder from a config-file-like object whose routes carry
// only `latency_hint`, so the router starts from the priors a user's config would give it.
import { buildCatalog } from "../../src/catalog/build";
import type { ModelEntry, ProviderEntry } from "../../src/catalog/types";
import type { FileConfig } from "../../src/config/schema";

export type LatencyHint = "fast" | "normal" | "slow";

/** A route's truth at a moment: medians and log-space spreads of TTFT and output tokens per second. */
export interface Profile {
  ttftMs: number;
  ttftSigma: number;
  tps: number;
  tpsSigma: number;
}

export interface RouteTruth extends Profile {
  provider: string;
  /** USD per 1M tokens, as the config file gives them. */
  inputPrice: number;
  outputPrice: number;
  /** What the operator wrote: a coarse class, not the truth. */
  latencyHint: LatencyHint;
}

export const MODEL_ID = "sim/chat";

// Hints follow each route's TTFT class (≤ 350 ms fast, ≤ 1 s normal, slower slow), as an operator who
// read the providers' pages would write them; within a class only measurement tells the routes apart.
export const MARKET: readonly RouteTruth[] = [
  { provider: "ash", inputPrice: 0.1, outputPrice: 0.3, latencyHint: "slow", ttftMs: 900, ttftSigma: 0.35, tps: 40, tpsSigma: 0.25 },
  { provider: "birch", inputPrice: 0.2, outputPrice: 0.6, latencyHint: "normal", ttftMs: 450, ttftSigma: 0.3, tps: 70, tpsSigma: 0.25 },
  { provider: "cedar", inputPrice: 0.25, outputPrice: 0.75, latencyHint: "fast", ttftMs: 300, ttftSigma: 0.3, tps: 150, tpsSigma: 0.2 },
  { provider: "elm", inputPrice: 0.3, outputPrice: 0.9, latencyHint: "fast", ttftMs: 350, ttftSigma: 0.3, tps: 350, tpsSigma: 0.2 },
  { provider: "fir", inputPrice: 0.45, outputPrice: 1.35, latencyHint: "slow", ttftMs: 1200, ttftSigma: 0.4, tps: 50, tpsSigma: 0.3 },
  { provider: "oak", inputPrice: 0.6, outputPrice: 1.8, latencyHint: "fast", ttftMs: 80, ttftSigma: 0.25, tps: 120, tpsSigma: 0.2 },
  { provider: "pine", inputPrice: 1.0, outputPrice: 3.0, latencyHint: "fast", ttftMs: 150, ttftSigma: 0.25, tps: 500, tpsSigma: 0.2 },
];

export function truthOf(provider: string): RouteTruth {
  const t = MARKET.find((r) => r.provider === provider);
  if (t === undefined) throw new Error(`bench market: no provider "${provider}"`);
  return t;
}

/** (input + output) / 2, as the planner's `max_cost_per_1m` compares. */
export function blended(t: RouteTruth): number {
  return (t.inputPrice + t.outputPrice) / 2;
}

export interface Market {
  model: ModelEntry;
  providers: ReadonlyMap<string, ProviderEntry>;
}

/** The catalog the gateway would build from a config file listing this market (catalog: replace). */
export function buildMarket(): Market {
  const file: FileConfig = {
    catalog: "replace",
    providers: Object.fromEntries(
      MARKET.map((r) => [r.provider, { adapter: "openai" as const, base_url: `http://${r.provider}.sim.invalid/v1`, api_key: "sk-sim" }]),
    ),
    models: {
      [MODEL_ID]: {
        routes: MARKET.map((r) => ({
          provider: r.provider,
          provider_model_id: "chat",
          input_price: r.inputPrice,
          output_price: r.outputPrice,
          latency_hint: r.latencyHint,
        })),
      },
    },
  };
  const catalog = buildCatalog({ file, credentialEnv: {}, now: 0 });
  const model = catalog.models.get(MODEL_ID);
  if (model === undefined) throw new Error("bench market: the catalog lost the model");
  return { model, providers: catalog.providers };
}

/** From request `atRequest` on (its arrival time), the provider's medians become these. */
export interface ProfileChange {
  provider: string;
  atRequest: number;
  ttftMs?: number;
  tps?: number;
}

export type FailureKind = "429" | "500" | "hang";

/** Attempts on the provider starting in [arrival of fromRequest, arrival of toRequest) fail this way. */
export interface FailureWindow {
  provider: string;
  fromRequest: number;
  toRequest: number;
  kind: FailureKind;
  retryAfterMs?: number;
}

/** The truth as a function of simulated time, for one scenario. */
export class World {
  private readonly changes: { provider: string; at: number; ttftMs?: number; tps?: number }[];
  private readonly windows: { w: FailureWindow; from: number; to: number }[];

  constructor(changes: readonly ProfileChange[], windows: readonly FailureWindow[], arrivals: readonly number[]) {
    const timeOf = (i: number) => arrivals[Math.min(i, arrivals.length - 1)]!;
    this.changes = changes.map((c) => ({ ...c, at: timeOf(c.atRequest) })).sort((a, b) => a.at - b.at);
    this.windows = windows.map((w) => ({ w, from: timeOf(w.fromRequest), to: timeOf(w.toRequest) }));
  }

  profile(provider: string, t: number): Profile {
    const base = truthOf(provider);
    const p: Profile = { ttftMs: base.ttftMs, ttftSigma: base.ttftSigma, tps: base.tps, tpsSigma: base.tpsSigma };
    for (const c of this.changes) {
      if (c.at > t) break;
      if (c.provider !== provider) continue;
      if (c.ttftMs !== undefined) p.ttftMs = c.ttftMs;
      if (c.tps !== undefined) p.tps = c.tps;
    }
    return p;
  }

  failure(provider: string, t: number): FailureWindow | null {
    for (const { w, from, to } of this.windows) if (w.provider === provider && t >= from && t < to) return w;
    return null;
  }
}
