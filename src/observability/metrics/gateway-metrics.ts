// The gateway's Prometheus metrics (GET /metrics, routes.ts). One instance per gateway, made in deps.ts
// and handed to the places that know each fact: every request record (calls, attempts, tokens, cost,
// durations), the rate limiter's and the budget guard's refusals, and, read at scrape time, the health
// store's circuits and the record writer's queue. Labels come from the catalog (provider, canonical
// model), the endpoint and closed sets; never a key, and a workspace only when the config asks for it.
import { Counter, Registry, collectDefaultMetrics } from "prom-client";
import type { Catalog } from "../../catalog/types";
import type { RateClass } from "../../limits/classes";
import type { LimitResult, RateLimiter } from "../../limits/limiter";
import type { BudgetPeriod } from "../../metering/periods";
import type { RecordWriter } from "../../metering/record-writer";
import type { RequestRecord } from "../../metering/request-record";
import type { MeteredRecord } from "../../inference/record";
import type { HealthStore } from "../../routing/health";
import { registerScrapeGauges } from "./scrape-gauges";
import { CounterFamily, HistogramFamily, type CounterSeries, type HistogramSeries } from "./families";

const STATUS_CLASSES = ["2xx", "4xx", "5xx"] as const;
const OUTCOMES = ["ok", "error", "timeout", "rate_limited", "client_cancelled"] as const;
const TOKEN_TYPES = ["input", "output", "cached_input", "cache_write", "reasoning"] as const;

// Seconds. Whole calls run from a fraction of a second to minutes (long generations); the gateway's own
// share is expected in the sub-millisecond to millisecond range.
const DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300];
const TTFT_BUCKETS = [0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 30];
const OVERHEAD_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

const EVENT_LOOP_SAMPLE_MS = 1000;

/** Earlier attempts of calls that fell back, until their final record; cleared if ever this many are waiting (a lost final). */
const MAX_PENDING_CALLS = 4096;

/** Every series one (endpoint, provider, model, credential kind[, workspace]) feeds, found with one nested lookup per call. */
interface CallSeries {
  readonly requestLabels: readonly string[];
  readonly requests: (CounterSeries | undefined)[];
  readonly attempts: (CounterSeries | undefined)[];
  readonly tokens: readonly CounterSeries[];
  readonly cost: CounterSeries;
  readonly duration: HistogramSeries;
  readonly ttft: HistogramSeries;
  readonly overhead: HistogramSeries;
  readonly provider: string;
  readonly model: string;
}

type Level<T> = Map<string, T>;

function child<T>(m: Level<T>, key: string, make: () => T): T {
  let v = m.get(key);
  if (v === undefined) {
    v = make();
    m.set(key, v);
  }
  return v;
}

function statusClass(code: number): number {
  if (code >= 200 && code < 300) return 0;
  return code >= 400 && code < 500 ? 1 : 2;
}

function outcomeOf(r: RequestRecord): number {
  if (r.success) return 0;
  if (r.errorCode === "cancelled" || r.statusCode === 499) return 4;
  if (r.errorCode === "provider_timeout") return 2;
  if (r.errorCode === "rate_limited" || r.statusCode === 429) return 3;
  return 1;
}

export interface MetricsOptions {
  catalog: Catalog;
  health: HealthStore;
  records: RecordWriter;
  /** Adds a `workspace` label to the request, token and cost families (config metrics.workspace_label). */
  workspaceLabel: boolean;
  now?: () => number;
}

export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly ws: boolean;
  private readonly now: () => number;
  private readonly requests: CounterFamily;
  private readonly attempts = new CounterFamily("switchyard_upstream_attempts_total", "Upstream attempts by outcome.", [
    "provider",
    "model",
    "outcome",
  ]);
  private readonly tokens: CounterFamily;
  private readonly cost: CounterFamily;
  private readonly duration = new HistogramFamily(
    "switchyard_request_duration_seconds",
    "Calls from their first attempt's start to their final answer (a stream: to its end), seconds.",
    ["endpoint", "provider"],
    DURATION_BUCKETS,
  );
  private readonly ttft = new HistogramFamily(
    "switchyard_time_to_first_token_seconds",
    "Streamed attempts: time to the upstream's first token, seconds.",
    ["provider", "model"],
    TTFT_BUCKETS,
  );
  private readonly overhead = new HistogramFamily(
    "switchyard_overhead_seconds",
    "The gateway's own time in a call: its duration minus its attempts' upstream time, seconds.",
    ["endpoint"],
    OVERHEAD_BUCKETS,
  );
  private readonly rateLimited: Counter<"class">;
  private readonly rateLimitedByClass = new Map<string, Counter.Internal>();
  private readonly budgetRefusals: Counter<"period">;
  private readonly budgetByPeriod = new Map<string, Counter.Internal>();
  private readonly series: Level<Level<Level<Level<Level<CallSeries>>>>> = new Map();
  private readonly pending = new Map<string, { startedAt: number; upstreamMs: number }>();
  private openStreams = 0;
  /** The labels and series of the last record counted (seriesFor). */
  private last: {
    endpoint: string;
    provider: string;
    model: string;
    source: RequestRecord["apiKeySource"];
    workspace: string;
    series: CallSeries;
  } | null = null;

  constructor(opts: MetricsOptions) {
    this.ws = opts.workspaceLabel;
    this.now = opts.now ?? Date.now;
    const w = this.ws ? ["workspace"] : [];
    this.requests = new CounterFamily("switchyard_requests_total", "Inference calls by their final answer.", [
      "endpoint",
      "model",
      "provider",
      "status_class",
      ...w,
    ]);
    this.tokens = new CounterFamily("switchyard_tokens_total", "Tokens of every attempt, as billed.", ["provider", "model", "type", ...w]);
    this.cost = new CounterFamily("switchyard_cost_microdollars_total", "Cost of every attempt, integer microdollars.", [
      "provider",
      "model",
      "api_key_source",
      ...w,
    ]);
    const r = this.registry;
    for (const f of [this.requests, this.attempts, this.tokens, this.cost, this.duration, this.ttft, this.overhead])
      r.registerMetric(f.asMetric());
    this.rateLimited = new Counter({
      name: "switchyard_rate_limited_total",
      help: "Requests refused by a rate limit (429), by rate class.",
      labelNames: ["class"],
      registers: [r],
    });
    this.budgetRefusals = new Counter({
      name: "switchyard_budget_refusals_total",
      help: "Calls refused by a budget, by the budget's period.",
      labelNames: ["period"],
      registers: [r],
    });
    registerScrapeGauges(this.registry, opts, () => this.openStreams, this.now);
    // The event-loop lag is sampled once a second: prom-client's default sampling timer (every 10 ms)
    // keeps about 1 % of a core busy even on an idle gateway.
    collectDefaultMetrics({ register: r, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  }

  /** One request record (every attempt of every call): counts it, and closes the call on its final attempt. */
  record(r: MeteredRecord): void {
    const s = this.seriesFor(r);
    const o = outcomeOf(r);
    (s.attempts[o] ??= this.attempts.series([s.provider, s.model, OUTCOMES[o]!])).value += 1;
    if (r.inputTokens > 0) s.tokens[0]!.value += r.inputTokens;
    if (r.outputTokens > 0) s.tokens[1]!.value += r.outputTokens;
    if (r.cachedTokens > 0) s.tokens[2]!.value += r.cachedTokens;
    if (r.cacheWriteTokens !== undefined && r.cacheWriteTokens > 0) s.tokens[3]!.value += r.cacheWriteTokens;
    if (r.reasoningTokens > 0) s.tokens[4]!.value += r.reasoningTokens;
    if (r.costMicrodollars > 0) s.cost.value += r.costMicrodollars;
    if (r.ttftMs !== null && r.success) this.ttft.observe(s.ttft, r.ttftMs / 1000);
    if (!r.isFinalAttempt) return this.hold(r);
    const c = statusClass(r.statusCode);
    (s.requests[c] ??= this.requests.series(s.requestLabels.map((v) => (v === "" ? STATUS_CLASSES[c]! : v)))).value += 1;
    // The call began at its first attempt: earlier attempts (a fallback) were held under its request ID.
    const prior = r.attempt > 1 ? this.pending.get(r.requestId) : undefined;
    if (prior) this.pending.delete(r.requestId);
    const upstreamMs = r.latencyMs + (prior?.upstreamMs ?? 0);
    const wholeMs = Math.max(this.now() - (prior?.startedAt ?? r.createdAt), upstreamMs);
    this.duration.observe(s.duration, wholeMs / 1000);
    this.overhead.observe(s.overhead, (wholeMs - upstreamMs) / 1000);
  }

  /** A rate limiter whose refusals are counted by class (wraps the memory or Redis one). */
  countingLimiter(inner: RateLimiter): RateLimiter {
    const count = (cls: RateClass, r: LimitResult): LimitResult => {
      if (!r.ok) child(this.rateLimitedByClass, cls, () => this.rateLimited.labels(cls)).inc();
      return r;
    };
    return {
      check(cls, key, now) {
        const r = inner.check(cls, key, now);
        return r instanceof Promise ? r.then((x) => count(cls, x)) : count(cls, r);
      },
    };
  }

  /** A call refused by a budget of this period (metering/guards.ts). */
  readonly budgetRefused = (period: BudgetPeriod): void => {
    child(this.budgetByPeriod, period, () => this.budgetRefusals.labels(period)).inc();
  };

  /** A stream's response began / ended (switchyard_active_streams). */
  readonly streamOpened = (): void => {
    this.openStreams += 1;
  };
  readonly streamClosed = (): void => {
    this.openStreams -= 1;
  };

  /** The Prometheus text of every family. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  private hold(r: RequestRecord): void {
    const p = this.pending.get(r.requestId);
    if (p) {
      p.upstreamMs += r.latencyMs;
      p.startedAt = Math.min(p.startedAt, r.createdAt);
      return;
    }
    if (this.pending.size >= MAX_PENDING_CALLS) this.pending.clear();
    this.pending.set(r.requestId, { startedAt: r.createdAt, upstreamMs: r.latencyMs });
  }

  private seriesFor(r: RequestRecord): CallSeries {
    const provider = r.provider ?? "none";
    const model = r.modelCanonical ?? "none";
    // Most records repeat the last one's labels (one model on one route): that series, without the lookups.
    const last = this.last;
    if (
      last !== null &&
      last.endpoint === r.endpoint &&
      last.provider === provider &&
      last.model === model &&
      last.source === r.apiKeySource &&
      (!this.ws || last.workspace === r.workspaceId)
    )
      return last.series;
    const series = this.lookUp(r, provider, model);
    this.last = { endpoint: r.endpoint, provider, model, source: r.apiKeySource, workspace: r.workspaceId, series };
    return series;
  }

  private lookUp(r: RequestRecord, provider: string, model: string): CallSeries {
    const byProvider = child(this.series, r.endpoint, () => new Map());
    const byModel = child(byProvider, provider, () => new Map());
    const bySource = child(byModel, model, () => new Map());
    const byWorkspace = child(bySource, r.apiKeySource ?? "none", () => new Map());
    const ws = this.ws ? r.workspaceId : "";
    return child(byWorkspace, ws, () => this.makeSeries(r.endpoint, provider, model, r.apiKeySource ?? "none", ws));
  }

  private makeSeries(endpoint: string, provider: string, model: string, source: string, workspace: string): CallSeries {
    const w = this.ws ? [workspace] : [];
    return {
      // "" stands for the status class, filled in when a class is first seen.
      requestLabels: [endpoint, model, provider, "", ...w],
      requests: [],
      attempts: [],
      tokens: TOKEN_TYPES.map((t) => this.tokens.series([provider, model, t, ...w])),
      cost: this.cost.series([provider, model, source, ...w]),
      duration: this.duration.series([endpoint, provider]),
      ttft: this.ttft.series([provider, model]),
      overhead: this.overhead.series([endpoint]),
      provider,
      model,
    };
  }
}
