// Issue 54 item 8: GET /v1/routing/health lists every catalog route once with the router's estimates,
// effective samples, priors, success rate, circuit and last failure; it follows real calls through the
// gateway, and needs routing:read (any workspace's key: the routes are the instance's, not a tenant's).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startGateway, type TestGateway } from "../../support/gateway";
import { testDatabaseKinds } from "../../support/databases";
import { SCOPES } from "../../../src/auth/scopes";
import { routeKey } from "../../../src/routing/health";

const kinds = await testDatabaseKinds();
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

interface RouteHealth {
  provider: string;
  provider_model_id: string;
  models: string[];
  estimates: { ttft_ms: { p50: number; p95: number }; throughput_tps: { p50: number; p95: number } };
  samples: { ttft: number; throughput: number; outcomes: number };
  prior: { ttft_ms: number; throughput_tps: number; latency_hint: string };
  success_rate: number;
  attempts: { successes: number; failures: number };
  circuit: { state: string; open_until: string | null; consecutive_failures: number };
  last_failure: { at: string; status: number | null; code: string | null } | null;
}

for (const kind of kinds) {
  describe(`GET /v1/routing/health on ${kind}`, () => {
    let g: TestGateway;
    beforeAll(async () => {
      g = await startGateway({ db: kind, config: { circuit: { failure_threshold: 2, cooldown_ms: 60_000 } } });
    });
    afterAll(() => g.stop());

    const list = async (key?: string | null) => {
      const r = await g.s.fetch("/v1/routing/health", key === undefined ? {} : { key });
      return { status: r.status, json: (await r.json()) as { routes: RouteHealth[]; count: number; error?: { code: string } } };
    };
    const route = async (key: string) => (await list()).json.routes.find((x) => `${x.provider}/${x.provider_model_id}` === key)!;
    const chat = async (model: string, stream: boolean) => {
      const r = await g.s.fetch("/v1/chat/completions", {
        method: "POST",
        body: JSON.stringify({ model, stream, messages: [{ role: "user", content: `hi ${crypto.randomUUID()}` }] }),
      });
      await r.text();
      return r.status;
    };

    test("every route of the catalog once, with the models it serves, at its priors before any call", async () => {
      const { status, json } = await list();
      expect(status).toBe(200);
      const expected = new Map<string, Set<string>>();
      for (const m of g.s.deps.catalog.models.values())
        for (const r of m.routes) expected.set(routeKey(r), (expected.get(routeKey(r)) ?? new Set()).add(m.id));
      const keys = json.routes.map((r) => `${r.provider}/${r.provider_model_id}`);
      expect(keys).toEqual([...expected.keys()].sort());
      expect(json.count).toBe(json.routes.length);
      for (const r of json.routes) expect(r.models).toEqual([...expected.get(`${r.provider}/${r.provider_model_id}`)!].sort());

      const solo = json.routes.find((r) => r.provider_model_id === "alpha-solo")!;
      const entry = g.s.deps.catalog.resolve("acme/openai-only")!.routes[0]!;
      expect(solo.prior).toEqual({ ttft_ms: entry.ttftHintMs, throughput_tps: entry.tpsHint, latency_hint: entry.latencyHint });
      expect(solo.estimates.ttft_ms.p50).toBe(Math.round(entry.ttftHintMs));
      expect(solo.estimates.throughput_tps.p50).toBe(Math.round(entry.tpsHint * 10) / 10);
      expect(solo.estimates.ttft_ms.p95).toBeGreaterThanOrEqual(solo.estimates.ttft_ms.p50);
      expect(solo.estimates.throughput_tps.p95).toBeLessThanOrEqual(solo.estimates.throughput_tps.p50);
      expect(solo).toMatchObject({
        samples: { ttft: 0, throughput: 0, outcomes: 0 },
        success_rate: 1,
        attempts: { successes: 0, failures: 0 },
        circuit: { state: "closed", open_until: null, consecutive_failures: 0 },
        last_failure: null,
      });
    });

    test("after a stream and a JSON call the route shows samples and measured estimates", async () => {
      expect(await chat("acme/openai-only", true)).toBe(200);
      expect(await chat("acme/openai-only", false)).toBe(200);
      const solo = await route("alpha/alpha-solo");
      expect(solo.attempts).toEqual({ successes: 2, failures: 0 });
      expect(solo.samples.ttft).toBeGreaterThan(0);
      expect(solo.samples.throughput).toBeGreaterThan(0);
      expect(solo.samples.outcomes).toBeGreaterThan(0);
      for (const n of Object.values(solo.samples)) expect(Math.round(n * 100)).toBe(n * 100);
      // The mock answers in milliseconds: the measured TTFT pulls the estimate well under the prior.
      expect(solo.estimates.ttft_ms.p50).toBeLessThan(solo.prior.ttft_ms);
      expect(solo.success_rate).toBe(1);
      expect(solo.last_failure).toBeNull();
    });

    test("a failing upstream shows its last failure, and past the threshold an open circuit", async () => {
      g.mock.setScript({ provider: "gamma" }, { kind: "error", status: 500, message: "boom" });
      expect(await chat("acme/gemini-only", false)).toBe(502);
      let gem = await route("gamma/gemini-solo");
      expect(gem.attempts).toEqual({ successes: 0, failures: 1 });
      expect(gem.circuit).toEqual({ state: "closed", open_until: null, consecutive_failures: 1 });
      expect(gem.last_failure).toMatchObject({ status: 500, code: "provider_error" });
      expect(gem.last_failure!.at).toMatch(ISO);
      expect(Math.abs(Date.parse(gem.last_failure!.at) - Date.now())).toBeLessThan(60_000);
      expect(gem.success_rate).toBeLessThan(1);

      expect(await chat("acme/gemini-only", false)).toBe(502);
      gem = await route("gamma/gemini-solo");
      expect(gem.circuit.state).toBe("open");
      expect(gem.circuit.consecutive_failures).toBe(2);
      expect(gem.circuit.open_until).toMatch(ISO);
      expect(Date.parse(gem.circuit.open_until!)).toBeGreaterThan(Date.now() + 30_000);
      // An open circuit is not tried: the next call fails without reaching the upstream.
      const sent = g.mock.requests.length;
      expect(await chat("acme/gemini-only", false)).toBe(503);
      expect(g.mock.requests.length).toBe(sent);
      expect((await route("gamma/gemini-solo")).attempts.failures).toBe(2);
      g.mock.reset();
    });

    test("needs routing:read, from a key of any workspace; none is 401, without the scope 403", async () => {
      const ws = g.s.workspaceId;
      const create = async (workspaceId: string, scopes: string[]) =>
        (await g.s.deps.repos.apiKeys.create({ workspaceId, name: "t", scopes: scopes as never })).key;
      const reader = await create(ws, ["routing:read"]);
      const lacking = await create(
        ws,
        SCOPES.filter((s) => s !== "routing:read"),
      );
      const other = await g.s.deps.repos.workspaces.create("Other");
      const otherReader = await create(other.id, ["routing:read"]);

      expect((await list(null)).status).toBe(401);
      const refused = await list(lacking);
      expect(refused.status).toBe(403);
      expect(refused.json.error!.code).toBe("insufficient_scope");
      expect((await list(reader)).status).toBe(200);
      expect((await list(g.s.adminKey)).status).toBe(200);
      const fromOther = await list(otherReader);
      expect(fromOther.status).toBe(200);
      expect(fromOther.json.count).toBe((await list()).json.count);
    });

    test("the OpenAPI document describes the route, its scope and its body", async () => {
      const spec = (await (await g.s.fetch("/openapi.json", { key: null })).json()) as {
        paths: Record<
          string,
          Record<string, { description: string; responses?: Record<string, { content: Record<string, { schema: any }> }> }>
        >;
      };
      const op = spec.paths["/v1/routing/health"]!.get!;
      expect(op.description).toContain("routing:read");
      const schema = op.responses!["200"]!.content["application/json"]!.schema;
      expect(Object.keys(schema.properties)).toEqual(["routes", "count"]);
      expect(Object.keys(schema.properties.routes.items.properties)).toContain("last_failure");
    });
  });
}
