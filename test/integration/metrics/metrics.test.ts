// GET /metrics on a real gateway (mock upstream, SQLite and Postgres): every family's values after JSON
// calls, a stream, a fallback, a rate-limit refusal, a budget refusal and record writes; the scope.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testDatabaseKinds } from "../../support/databases";
import { startGateway, type TestGateway } from "../../support/gateway";
import { GENEROUS_LIMITS } from "../../support/server";
import { eventually } from "../../support/spawn";
import { SCOPES } from "../../../src/auth/scopes";
import { makeRecord } from "../metering/test-db";
import { parseMetrics, samples, type Sample } from "./prom-text";

const kinds = await testDatabaseKinds();

const chat = (g: TestGateway, body: Record<string, unknown>) =>
  g.s.fetch("/v1/chat/completions", { method: "POST", body: JSON.stringify({ messages: [{ role: "user", content: "hi" }], ...body }) });

async function scrape(g: TestGateway, key?: string | null): Promise<Sample[]> {
  const r = await g.s.fetch("/metrics", { key });
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  return parseMetrics(await r.text());
}

for (const kind of kinds) {
  describe(`GET /metrics on ${kind}`, () => {
    let g: TestGateway;
    let m: Sample[];
    const cost: Record<string, number> = {};
    beforeAll(async () => {
      g = await startGateway({
        db: kind,
        config: {
          circuit: { failure_threshold: 1, cooldown_ms: 600_000 },
          limits: { ...GENEROUS_LIMITS, discovery: { per_minute: 1, burst: 1 } },
        },
      });
      // A JSON call on alpha (the mock's usage: 10 in, 5 out).
      const json = await chat(g, { model: "acme/openai-only" });
      expect(json.status).toBe(200);
      cost.json = ((await json.json()) as { routing_metadata: { cost: { microdollars: number } } }).routing_metadata.cost.microdollars;
      // A stream on beta with cache reads and writes.
      g.mock.setScript({ provider: "beta" }, { kind: "reply", usage: { input: 100, output: 20, cached: 40, cacheWrite: 10 } });
      const stream = await chat(g, { model: "acme/anthropic-only", stream: true });
      expect(stream.status).toBe(200);
      expect(await stream.text()).toContain("[DONE]");
      // A fallback: the cheapest route (gamma) answers 500, alpha serves; gamma's circuit opens (threshold 1).
      g.mock.setScript({ provider: "gamma" }, { kind: "error", status: 500 });
      const fallback = await chat(g, { model: "acme/chat", gateway: { routing: { optimize: "cost" } } });
      expect(fallback.status).toBe(200);
      const fb = (await fallback.json()) as { routing_metadata: { provider: string; cost: { microdollars: number } } };
      expect(fb.routing_metadata.provider).toBe("alpha");
      cost.fallback = fb.routing_metadata.cost.microdollars;
      // Rate limit: discovery allows one request a minute per address.
      expect((await g.s.fetch("/v1/registry/providers", { key: null })).status).toBe(200);
      expect((await g.s.fetch("/v1/registry/providers", { key: null })).status).toBe(429);
      // A budget of one microdollar this month, already spent by the calls above (read back from their
      // records), refuses the next call before any attempt.
      await g.s.deps.records.flush();
      const ws = g.s.workspaceId;
      const b = await g.s.fetch(`/v1/workspaces/${ws}/budgets`, {
        method: "POST",
        body: JSON.stringify({ scope: "workspace", period: "monthly", limit: 0.000001 }),
      });
      expect(b.status).toBe(201);
      const budgetId = ((await b.json()) as { budget_id: string }).budget_id;
      expect(await eventually(async () => (await g.s.deps.budgets.spend(budgetId)) > 0)).toBe(true);
      const refused = await chat(g, { model: "acme/openai-only" });
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("budget_exceeded");
      // One record the database refuses (NaN tokens), enqueued straight to the writer.
      g.s.deps.records.enqueue(makeRecord({ workspaceId: ws, inputTokens: NaN }));
      await g.s.deps.records.flush();
      expect(g.s.deps.records.size()).toBe(0);
      m = await scrape(g);
    });
    afterAll(() => g.stop());

    test("calls by their final answer; the budget refusal made no call", () => {
      expect(samples(m, "switchyard_requests_total")).toEqual([
        { labels: { endpoint: "chat_completions", model: "acme/openai-only", provider: "alpha", status_class: "2xx" }, value: 1 },
        { labels: { endpoint: "chat_completions", model: "acme/anthropic-only", provider: "beta", status_class: "2xx" }, value: 1 },
        { labels: { endpoint: "chat_completions", model: "acme/chat", provider: "alpha", status_class: "2xx" }, value: 1 },
      ]);
    });

    test("every upstream attempt with its outcome", () => {
      expect(samples(m, "switchyard_upstream_attempts_total")).toEqual([
        { labels: { provider: "alpha", model: "acme/openai-only", outcome: "ok" }, value: 1 },
        { labels: { provider: "beta", model: "acme/anthropic-only", outcome: "ok" }, value: 1 },
        { labels: { provider: "gamma", model: "acme/chat", outcome: "error" }, value: 1 },
        { labels: { provider: "alpha", model: "acme/chat", outcome: "ok" }, value: 1 },
      ]);
    });

    test("tokens by type (input counts every prompt token, cached and cache-written ones included)", () => {
      const t = (provider: string, model: string, type: string, value: number) => ({ labels: { provider, model, type }, value });
      expect(samples(m, "switchyard_tokens_total")).toEqual([
        t("alpha", "acme/openai-only", "input", 10),
        t("alpha", "acme/openai-only", "output", 5),
        t("alpha", "acme/openai-only", "cached_input", 0),
        t("alpha", "acme/openai-only", "cache_write", 0),
        t("alpha", "acme/openai-only", "reasoning", 0),
        t("beta", "acme/anthropic-only", "input", 100),
        t("beta", "acme/anthropic-only", "output", 20),
        t("beta", "acme/anthropic-only", "cached_input", 40),
        t("beta", "acme/anthropic-only", "cache_write", 10),
        t("beta", "acme/anthropic-only", "reasoning", 0),
        t("gamma", "acme/chat", "input", 0),
        t("gamma", "acme/chat", "output", 0),
        t("gamma", "acme/chat", "cached_input", 0),
        t("gamma", "acme/chat", "cache_write", 0),
        t("gamma", "acme/chat", "reasoning", 0),
        t("alpha", "acme/chat", "input", 10),
        t("alpha", "acme/chat", "output", 5),
        t("alpha", "acme/chat", "cached_input", 0),
        t("alpha", "acme/chat", "cache_write", 0),
        t("alpha", "acme/chat", "reasoning", 0),
      ]);
    });

    test("cost in microdollars, as routing_metadata reported it", () => {
      // 10 × $1 + 5 × $2 per 1M; a fallback served by alpha's acme/chat route ($1 / $3).
      expect(cost).toEqual({ json: 20, fallback: 25 });
      // 50 uncached × $3 + 40 cached × $0.30 + 10 cache writes × $3 (no write price: the input price) + 20 out × $15.
      const stream = 50 * 3 + 40 * 0.3 + 10 * 3 + 20 * 15;
      expect(samples(m, "switchyard_cost_microdollars_total")).toEqual([
        { labels: { provider: "alpha", model: "acme/openai-only", api_key_source: "platform" }, value: cost.json! },
        { labels: { provider: "beta", model: "acme/anthropic-only", api_key_source: "platform" }, value: stream },
        { labels: { provider: "gamma", model: "acme/chat", api_key_source: "platform" }, value: 0 },
        { labels: { provider: "alpha", model: "acme/chat", api_key_source: "platform" }, value: cost.fallback! },
      ]);
    });

    test("histograms: one duration and overhead per call, one TTFT per streamed attempt", () => {
      const count = (name: string) => samples(m, `${name}_count`).map((s) => [s.labels, s.value]);
      expect(count("switchyard_request_duration_seconds")).toEqual([
        [{ endpoint: "chat_completions", provider: "alpha" }, 2],
        [{ endpoint: "chat_completions", provider: "beta" }, 1],
        [{ endpoint: "chat_completions", provider: "gamma" }, 0],
      ]);
      expect(count("switchyard_overhead_seconds")).toEqual([[{ endpoint: "chat_completions" }, 3]]);
      expect(count("switchyard_time_to_first_token_seconds")).toEqual([
        [{ provider: "alpha", model: "acme/openai-only" }, 0],
        [{ provider: "beta", model: "acme/anthropic-only" }, 1],
        [{ provider: "gamma", model: "acme/chat" }, 0],
        [{ provider: "alpha", model: "acme/chat" }, 0],
      ]);
      // Buckets are cumulative and end at the count.
      const buckets = samples(m, "switchyard_overhead_seconds_bucket");
      expect(buckets.at(-1)).toEqual({ labels: { endpoint: "chat_completions", le: "+Inf" }, value: 3 });
      const values = buckets.map((b) => b.value);
      expect(values).toEqual([...values].sort((a, b) => a - b));
      const overhead = samples(m, "switchyard_overhead_seconds_sum")[0]!.value;
      const duration = samples(m, "switchyard_request_duration_seconds_sum").reduce((a, s) => a + s.value, 0);
      expect(overhead).toBeGreaterThanOrEqual(0);
      expect(overhead).toBeLessThanOrEqual(duration);
    });

    test("refusals: rate limit by class, budget by period", () => {
      expect(samples(m, "switchyard_rate_limited_total")).toEqual([{ labels: { class: "discovery" }, value: 1 }]);
      expect(samples(m, "switchyard_budget_refusals_total")).toEqual([{ labels: { period: "monthly" }, value: 1 }]);
    });

    test("records written, dead-lettered and queued; circuits of the routes attempted; open streams", () => {
      expect(samples(m, "switchyard_records_written_total")).toEqual([{ labels: {}, value: 4 }]);
      expect(samples(m, "switchyard_records_dead_letter_total")).toEqual([{ labels: {}, value: 1 }]);
      expect(samples(m, "switchyard_record_queue_depth")).toEqual([{ labels: {}, value: 0 }]);
      // Every route the router holds state for (it ranked acme/chat's beta route too); only gamma's is open.
      const circuits = samples(m, "switchyard_route_circuit_open");
      expect(circuits.filter((s) => s.value !== 0)).toEqual([{ labels: { provider: "gamma", model: "acme/chat" }, value: 1 }]);
      expect(circuits.map((s) => `${s.labels.provider} ${s.labels.model}`).sort()).toEqual([
        "alpha acme/chat",
        "alpha acme/openai-only",
        "beta acme/anthropic-only",
        "beta acme/chat",
        "gamma acme/chat",
      ]);
      expect(samples(m, "switchyard_active_streams")).toEqual([{ labels: {}, value: 0 }]);
    });

    test("the process's default metrics are there", () => {
      for (const name of ["process_cpu_seconds_total", "process_resident_memory_bytes", "nodejs_heap_size_used_bytes"]) {
        expect(samples(m, name).length).toBe(1);
      }
    });

    test("a second scrape adds nothing by itself (scrape-time counters count once)", async () => {
      const again = await scrape(g);
      for (const name of ["switchyard_records_written_total", "switchyard_records_dead_letter_total", "switchyard_requests_total"]) {
        expect(samples(again, name)).toEqual(samples(m, name));
      }
    });

    test("scope: 401 without a key, 403 without metrics:read, 200 with only it; listed in /openapi.json", async () => {
      expect((await g.s.fetch("/metrics", { key: null })).status).toBe(401);
      const without = await g.s.deps.repos.apiKeys.create({
        workspaceId: g.s.workspaceId,
        name: "no-metrics",
        scopes: SCOPES.filter((s) => s !== "metrics:read"),
      });
      const denied = await g.s.fetch("/metrics", { key: without.key });
      expect(denied.status).toBe(403);
      expect(((await denied.json()) as { error: { code: string; message: string } }).error).toMatchObject({
        code: "insufficient_scope",
        message: expect.stringContaining("metrics:read"),
      });
      const only = await g.s.deps.repos.apiKeys.create({ workspaceId: g.s.workspaceId, name: "scraper", scopes: ["metrics:read"] });
      expect((await scrape(g, only.key)).length).toBeGreaterThan(0);
      const spec = (await (await g.s.fetch("/openapi.json")).json()) as { paths: Record<string, { get?: { description?: string } }> };
      expect(spec.paths["/metrics"]?.get?.description).toContain("metrics:read");
    });
  });
}

describe("GET /metrics, public and with the workspace label", () => {
  let g: TestGateway;
  beforeAll(async () => {
    g = await startGateway({ env: { SWITCHYARD_METRICS_PUBLIC: "1" }, config: { metrics: { workspace_label: true } } });
  });
  afterAll(() => g.stop());

  test("no key needed; the request, token and cost families carry the workspace, the others do not", async () => {
    expect((await chat(g, { model: "acme/openai-only" })).status).toBe(200);
    const m = await scrape(g, null);
    const ws = g.s.workspaceId;
    expect(samples(m, "switchyard_requests_total")).toEqual([
      {
        labels: { endpoint: "chat_completions", model: "acme/openai-only", provider: "alpha", status_class: "2xx", workspace: ws },
        value: 1,
      },
    ]);
    expect(samples(m, "switchyard_tokens_total")[0]!.labels).toEqual({
      provider: "alpha",
      model: "acme/openai-only",
      type: "input",
      workspace: ws,
    });
    expect(samples(m, "switchyard_cost_microdollars_total")[0]!.labels).toMatchObject({ workspace: ws });
    expect(samples(m, "switchyard_upstream_attempts_total")[0]!.labels).toEqual({
      provider: "alpha",
      model: "acme/openai-only",
      outcome: "ok",
    });
  });

  test("config metrics.public alone also opens it", async () => {
    const h = await startGateway({ config: { metrics: { public: true } } });
    try {
      expect((await h.s.fetch("/metrics", { key: null })).status).toBe(200);
    } finally {
      await h.stop();
    }
  });
});

describe("open streams gauge", () => {
  test("counts a stream while it is open, and not once its client has left", async () => {
    const g = await startGateway();
    try {
      // The upstream stalls after its first chunks: the stream stays open until the client leaves.
      g.mock.setScript({ provider: "alpha" }, { kind: "reply", text: "a long answer in pieces", hangAfterChunks: 2 });
      const abort = new AbortController();
      const res = await fetch(`${g.s.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${g.s.adminKey}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "acme/openai-only", stream: true, messages: [{ role: "user", content: "hi" }] }),
        signal: abort.signal,
      });
      const reader = res.body!.getReader();
      await reader.read();
      expect(samples(await scrape(g), "switchyard_active_streams")).toEqual([{ labels: {}, value: 1 }]);
      abort.abort();
      await reader.cancel().catch(() => {});
      const open = async () => samples(await scrape(g), "switchyard_active_streams")[0]?.value;
      expect(await eventually(async () => (await open()) === 0)).toBe(true);
    } finally {
      await g.stop();
    }
  });
});

describe("attempt outcomes: rate limited, timeout, client cancelled", () => {
  let g: TestGateway;
  beforeAll(async () => {
    g = await startGateway();
  });
  afterAll(() => g.stop());

  const attempts = async () => samples(await scrape(g), "switchyard_upstream_attempts_total");

  test("an upstream 429 is rate_limited and a first byte past the deadline is a timeout; the call by its final answer", async () => {
    g.mock.setScript({ provider: "gamma" }, { kind: "error", status: 429 });
    g.mock.setScript({ provider: "alpha" }, { kind: "hang" });
    g.mock.setScript({ provider: "beta" }, { kind: "error", status: 500 });
    const r = await chat(g, { model: "acme/chat", gateway: { routing: { optimize: "cost" } } });
    expect(r.status).toBe(502);
    expect(await attempts()).toEqual([
      { labels: { provider: "gamma", model: "acme/chat", outcome: "rate_limited" }, value: 1 },
      { labels: { provider: "alpha", model: "acme/chat", outcome: "timeout" }, value: 1 },
      { labels: { provider: "beta", model: "acme/chat", outcome: "error" }, value: 1 },
    ]);
    const m = await scrape(g);
    expect(samples(m, "switchyard_requests_total")).toEqual([
      { labels: { endpoint: "chat_completions", model: "acme/chat", provider: "beta", status_class: "5xx" }, value: 1 },
    ]);
    expect(samples(m, "switchyard_request_duration_seconds_count")).toContainEqual({
      labels: { endpoint: "chat_completions", provider: "beta" },
      value: 1,
    });
  });

  test("a client that leaves a stream: client_cancelled, and the call counts as 4xx", async () => {
    g.mock.reset();
    g.mock.setScript({ provider: "alpha" }, { kind: "reply", hangAfterChunks: 2 });
    const abort = new AbortController();
    const r = await g.s.fetch("/v1/chat/completions", {
      method: "POST",
      body: JSON.stringify({ model: "acme/openai-only", stream: true, messages: [{ role: "user", content: "hi" }] }),
      signal: abort.signal,
    });
    const reader = r.body!.getReader();
    await reader.read();
    abort.abort();
    const cancelled = { labels: { provider: "alpha", model: "acme/openai-only", outcome: "client_cancelled" }, value: 1 };
    expect(await eventually(async () => (await attempts()).some((s) => JSON.stringify(s) === JSON.stringify(cancelled)))).toBe(true);
    expect(samples(await scrape(g), "switchyard_requests_total")).toContainEqual({
      labels: { endpoint: "chat_completions", model: "acme/openai-only", provider: "alpha", status_class: "4xx" },
      value: 1,
    });
  });
});
