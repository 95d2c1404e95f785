// The loop: requests arrive on a simulated clock, the real planner plans each one against the real
// HealthStore, and its candidates are tried in order as src/inference/attempt-loop.ts does. Requests
// overlap: an attempt's outcome reaches the store when the attempt ends (as the gateway records it),
// so the router learns with the lag a live gateway has. Events run in time order; nothing waits.
import { planRoute } from "../../src/routing/candidates";
import { isProviderFault } from "../../src/routing/fault";
import { HealthStore } from "../../src/routing/health";
import type { Candidate, RoutePlan } from "../../src/routing/types";
import type { UpstreamError } from "../../src/providers/types";
import { blended, buildMarket, truthOf, World, type Market } from "./market";
import { breaksCeiling, oracleChoice } from "./oracle";
import { lognormal, mulberry32, normal } from "./prng";
import type { Scenario } from "./scenarios";

/** Mean gap between arrivals (ms), jittered ±50 %: about ten requests a second. */
export const INTER_ARRIVAL_MS = 100;
/** Output tokens per answer: log-normal around this median. */
const TOKENS_MEDIAN = 150;
const TOKENS_SIGMA = 0.5;
/** How long a refused attempt takes before the next candidate can start. */
const FAILURE_MS: Readonly<Record<"429" | "500", number>> = { "429": 30, "500": 150 };

/** A request's own draws, fixed before the run so every router version meets the same world. */
interface Draw {
  arrival: number;
  zTtft: number;
  zTps: number;
  tokens: number;
}

export interface RequestRecord {
  index: number;
  arrival: number;
  /** The plan's first candidate (the router's choice), null when planning failed. */
  first: string | null;
  explored: boolean;
  oracle: string | null;
  served: string | null;
  attempts: number;
  /** What the client saw: from arrival to first token (fallback attempts included), and the answer's rate. */
  ttftMs: number | null;
  tps: number | null;
  /** From arrival to the answer's end. */
  latencyMs: number | null;
  /** When the serving attempt started and when its outcome reached the health store. */
  startedAt: number | null;
  doneAt: number | null;
  price: number | null;
  /** The oracle route's figures for the same draws (common random numbers). */
  oracleTtftMs: number | null;
  oracleTps: number | null;
  oraclePrice: number | null;
  /** The strategy's true score of the served route and of the oracle's (rank.ts weights on the true figures). */
  score: number | null;
  oracleScore: number | null;
  /** Served on a route whose true figures broke a ceiling when the attempt started. */
  overCeiling: boolean;
  planUs: number;
}

function drawRequests(n: number, seed: number): Draw[] {
  const random = mulberry32(seed);
  const out: Draw[] = [];
  let t = 1_000_000;
  for (let i = 0; i < n; i++) {
    t += INTER_ARRIVAL_MS * (0.5 + random());
    const tokens = Math.max(1, Math.round(lognormal(TOKENS_MEDIAN, TOKENS_SIGMA, normal(random))));
    out.push({ arrival: t, zTtft: normal(random), zTps: normal(random), tokens });
  }
  return out;
}

type Outcome = { ok: true; durationMs: number; ttftMs: number; tps: number } | { ok: false; durationMs: number; error: UpstreamError };

type EventBody =
  | { kind: "arrive"; i: number }
  | { kind: "first"; key: string; ttftMs: number }
  | { kind: "done"; i: number; candidates: Candidate[]; at: number; startedAt: number; outcome: Outcome };
type SimEvent = EventBody & { t: number; seq: number };

/** A time-ordered queue (ties in insertion order); a few hundred events are pending at most. */
class Queue {
  private readonly items: SimEvent[] = [];
  private seq = 0;
  push(t: number, body: EventBody): void {
    const ev: SimEvent = { ...body, t, seq: this.seq++ };
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const m = this.items[mid]!;
      if (m.t < ev.t || (m.t === ev.t && m.seq < ev.seq)) lo = mid + 1;
      else hi = mid;
    }
    this.items.splice(lo, 0, ev);
  }
  shift(): SimEvent | undefined {
    return this.items.shift();
  }
}

export interface SimOptions {
  seed: number;
  /** Overrides the scenario's scored request count (the smoke test runs a short one). */
  requests?: number;
  /** Called at each arrival before planning, to look into the store while debugging the router. */
  observe?: (index: number, health: HealthStore, now: number) => void;
}

export function simulate(s: Scenario, options: SimOptions): RequestRecord[] {
  const market: Market = buildMarket();
  const total = s.warmup + (options.requests ?? s.requests);
  const draws = drawRequests(total, options.seed);
  const world = new World(
    s.changes,
    s.windows,
    draws.map((d) => d.arrival),
  );
  const health = new HealthStore({ random: mulberry32(options.seed ^ 0x5eed) });
  const records: RequestRecord[] = [];
  const oracleScores: (ReadonlyMap<string, number> | null)[] = [];
  const queue = new Queue();
  for (let i = 0; i < total; i++) queue.push(draws[i]!.arrival, { kind: "arrive", i });
  const request = { optimize: s.optimize, maxCostPer1m: s.maxCostPer1m, maxTtftMs: s.maxTtftMs };
  // Both credential callbacks: today's planner reads hasCredential, the adaptive one credential().
  const base = { models: [market.model], providers: market.providers, request, health, endpoint: "chat_completions" as const };
  const credentials = { hasCredential: () => true, credential: () => "platform" as const };

  const attempt = (i: number, candidates: Candidate[], from: number, now: number): void => {
    const rec = records[i]!;
    for (let k = from; k < candidates.length; k++) {
      const c = candidates[k]!;
      if (!health.tryAcquireProbe(c.routeKey, now)) continue;
      rec.attempts++;
      const outcome = draw(world, c, now, draws[i]!);
      // As in the gateway (run-stream.ts), a stream's TTFT reaches the store at its first token.
      if (outcome.ok) queue.push(now + outcome.ttftMs, { kind: "first", key: c.routeKey, ttftMs: outcome.ttftMs });
      queue.push(now + outcome.durationMs, { kind: "done", i, candidates, at: k, startedAt: now, outcome });
      return;
    }
  };

  for (let ev = queue.shift(); ev !== undefined; ev = queue.shift()) {
    const now = ev.t;
    if (ev.kind === "arrive") {
      const d = draws[ev.i]!;
      options.observe?.(ev.i, health, now);
      const oracle = oracleChoice(s, market, world, now);
      const input = { ...base, ...credentials, now };
      const t0 = performance.now();
      const plan: RoutePlan = planRoute(input);
      const planUs = (performance.now() - t0) * 1000;
      // The router's first choice is the route it ranked best: an exploration leads with another one to
      // measure it (counted in `explored`), and the best is then its first fallback.
      const lead = plan.ok ? plan.candidates[0] : undefined;
      const first = lead?.explored === true && plan.ok ? (plan.candidates[1] ?? lead) : lead;
      records.push({
        index: ev.i,
        arrival: now,
        first: first?.route.provider ?? null,
        explored: lead?.explored === true,
        oracle: oracle?.provider ?? null,
        served: null,
        attempts: 0,
        ttftMs: null,
        tps: null,
        latencyMs: null,
        startedAt: null,
        doneAt: null,
        price: null,
        oracleTtftMs: oracle ? lognormal(oracle.profile.ttftMs, oracle.profile.ttftSigma, d.zTtft) : null,
        oracleTps: oracle ? lognormal(oracle.profile.tps, oracle.profile.tpsSigma, d.zTps) : null,
        oraclePrice: oracle?.price ?? null,
        score: null,
        oracleScore: oracle ? oracle.scores.get(oracle.provider)! : null,
        overCeiling: false,
        planUs,
      });
      oracleScores.push(oracle?.scores ?? null);
      if (plan.ok) attempt(ev.i, plan.candidates, 0, now);
      continue;
    }
    if (ev.kind === "first") {
      health.recordFirstToken(ev.key, ev.ttftMs, now);
      continue;
    }
    const { i, candidates, at, startedAt, outcome } = ev;
    const c = candidates[at]!;
    if (outcome.ok) {
      health.recordSuccess(c.routeKey, { tps: outcome.tps, latencyMs: outcome.durationMs }, now);
      const rec = records[i]!;
      const truth = truthOf(c.route.provider);
      rec.served = c.route.provider;
      rec.ttftMs = startedAt - rec.arrival + outcome.ttftMs;
      rec.tps = outcome.tps;
      rec.latencyMs = now - rec.arrival;
      rec.startedAt = startedAt;
      rec.doneAt = now;
      rec.price = blended(truth);
      rec.overCeiling = breaksCeiling(s, rec.price, world.profile(c.route.provider, startedAt));
      rec.score = oracleScores[i]?.get(c.route.provider) ?? 0;
      continue;
    }
    const { error } = outcome;
    if (isProviderFault(error, "platform")) {
      const sample = { status: error.status, code: error.code, retryAfterMs: error.retryAfterMs };
      health.recordFailure(c.routeKey, sample, now);
    } else health.releaseProbe(c.routeKey);
    if (error.retryable) attempt(i, candidates, at + 1, now);
  }
  return records;
}

/** One attempt's outcome from the route's truth at the moment it starts. */
function draw(world: World, c: Candidate, now: number, d: Draw): Outcome {
  const provider = c.route.provider;
  const failure = world.failure(provider, now);
  if (failure?.kind === "hang") {
    const error: UpstreamError = { code: "provider_timeout", status: 0, retryable: true, message: "first-byte timeout" };
    return { ok: false, durationMs: c.provider.firstByteTimeoutMs, error };
  }
  if (failure !== null) {
    const status = failure.kind === "429" ? 429 : 500;
    const code = failure.kind === "429" ? "rate_limited" : "provider_error";
    const error: UpstreamError = { code, status, retryable: true, message: `simulated ${status}`, retryAfterMs: failure.retryAfterMs };
    return { ok: false, durationMs: FAILURE_MS[failure.kind], error };
  }
  const p = world.profile(provider, now);
  const ttftMs = lognormal(p.ttftMs, p.ttftSigma, d.zTtft);
  const tps = lognormal(p.tps, p.tpsSigma, d.zTps);
  return { ok: true, durationMs: ttftMs + (d.tokens * 1000) / tps, ttftMs, tps };
}
