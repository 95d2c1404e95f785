import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { startGateway, type TestGateway } from "../../support/gateway";
import { eventually } from "../../support/spawn";

// Every rule here holds for both upstream clients: Bun's fetch (the default) and the socket client.
for (const client of ["fetch", "sockets"] as const) {
  describe(`with the ${client} upstream client`, () => {
    let g: TestGateway;
    beforeAll(async () => {
      g = await startGateway({
        config: { circuit: { failure_threshold: 3, cooldown_ms: 300 } },
        env: { SWITCHYARD_TUNING: "on", SWITCHYARD_UPSTREAM_CLIENT: client },
      });
    });
    afterAll(() => g.stop());
    beforeEach(() => g.mock.reset());

    type Meta = { provider: string; routing_strategy: string; attempts: { provider: string; error_code: string; status: number }[] };
    async function chat(body: Record<string, unknown>, init: RequestInit = {}) {
      const r = await g.s.fetch("/v1/chat/completions", {
        method: "POST",
        body: JSON.stringify({ messages: [{ role: "user", content: "hi" }], ...body }),
        ...init,
      });
      const json = (await r.json()) as {
        routing_metadata: Meta;
        error?: { code: string; message: string; param: string | null; provider?: string };
      };
      return { status: r.status, json, headers: r.headers };
    }
    const providersHit = () => g.mock.requests.filter((r) => r.route === "chat").map((r) => r.provider);

    async function streamProvider(gw: TestGateway, body: Record<string, unknown>): Promise<string> {
      const r = await gw.s.fetch("/v1/chat/completions", {
        method: "POST",
        body: JSON.stringify({ messages: [{ role: "user", content: "x" }], stream: true, ...body }),
      });
      const text = await r.text();
      return /"routing_metadata":\{"provider":"(\w+)"/.exec(text)?.[1] ?? `none: ${text.slice(0, 200)}`;
    }

    describe("ttft routing", () => {
      test("ttft prefers the measured-fastest route after some traffic", async () => {
        const gw = await startGateway();
        try {
          // Every route starts from the same 200 ms prior; gamma (the cheapest, so first on ties) is slow.
          const models = gw.s.deps.catalog.models.get("acme/chat")!.routes as { ttftHintMs: number }[];
          for (const r of models) r.ttftHintMs = 200;
          gw.mock.setScript({ provider: "gamma" }, { kind: "reply", delayMs: 400 });
          const body = { model: "acme/chat", gateway: { routing: { optimize: "ttft" } } };
          expect(await streamProvider(gw, body)).toBe("gamma");
          expect(await streamProvider(gw, body)).toBe("alpha");
          expect(await streamProvider(gw, body)).toBe("alpha");
        } finally {
          await gw.stop();
        }
      });
    });

    describe("routing rules", () => {
      test("cost: the cheapest route wins", async () => {
        const r = await chat({ model: "acme/chat", gateway: { routing: { optimize: "cost" } } });
        expect(r.status).toBe(200);
        expect(r.json.routing_metadata.provider).toBe("gamma");
        expect(r.json.routing_metadata.routing_strategy).toBe("cost");
      });

      test("a model-ID suffix sets the strategy (:floor means cost)", async () => {
        const r = await chat({ model: "acme/chat:floor" });
        expect(r.json.routing_metadata).toMatchObject({ provider: "gamma", routing_strategy: "cost" });
      });

      test("max_cost_per_1m filters routes, and one that leaves none is a 400 naming it", async () => {
        const ok = await chat({ model: "acme/chat", gateway: { routing: { max_cost_per_1m: 1.0, optimize: "ttft" } } });
        expect(ok.json.routing_metadata.provider).toBe("gamma");
        const none = await chat({ model: "acme/chat", gateway: { routing: { max_cost_per_1m: 0.5 } } });
        expect(none.status).toBe(400);
        expect(none.json.error).toMatchObject({ code: "no_eligible_route", param: "gateway.routing.max_cost_per_1m" });
      });

      test("pool ranks across all models; fallback keeps the given model order", async () => {
        const models = ["acme/openai-only", "acme/gemini-only"];
        const pool = await chat({ gateway: { models, routing: { mode: "pool", optimize: "cost" } } });
        expect(pool.json.routing_metadata.provider).toBe("gamma");
        const fb = await chat({ gateway: { models, routing: { mode: "fallback", optimize: "cost" } } });
        expect(fb.json.routing_metadata.provider).toBe("alpha");
      });

      for (const [what, behaviour] of [
        ["500", { kind: "error", status: 500 }],
        ["429", { kind: "error", status: 429, headers: { "retry-after": "1" } }],
        ["a timeout", { kind: "hang" }],
      ] as const) {
        test(`falls back to the next route on ${what} and reports the failed attempt`, async () => {
          g.s.deps.health.recordSuccess("gamma/gamma-chat", { latencyMs: 1 }, Date.now());
          g.mock.setScript({ provider: "gamma" }, behaviour as never);
          const r = await chat({ model: "acme/chat", gateway: { routing: { optimize: "cost" } } });
          expect(r.status).toBe(200);
          expect(r.json.routing_metadata.provider).toBe("alpha");
          expect(r.json.routing_metadata.attempts[0]).toMatchObject({ provider: "gamma" });
        });
      }

      test("a provider answering with a redirect is a provider error naming where it points, and the redirect is not followed", async () => {
        // Port 1 has nothing listening: following the redirect would end as "could not reach".
        const location = "http://127.0.0.1:1/moved/v1/chat/completions";
        g.mock.setScript({ provider: "alpha" }, { kind: "error", status: 308, headers: { location } });
        const r = await chat({ model: "acme/openai-only" });
        expect(r.status).toBe(502);
        expect(r.json.error!.code).toBe("provider_error");
        expect(r.json.error!.message).toContain(`HTTP 308, a redirect to ${location}`);
        expect(providersHit()).toEqual(["alpha"]);
        // Counted against the route like any provider error; cleared so the circuit test starts fresh.
        g.s.deps.health.recordSuccess("alpha/alpha-solo", { latencyMs: 1 }, Date.now());
      });

      test("a caller error (upstream 400) is returned at once, without fallback", async () => {
        g.mock.setScript({ provider: "gamma" }, { kind: "error", status: 400, message: "temperature is out of range for this model" });
        const r = await chat({ model: "acme/chat", gateway: { routing: { optimize: "cost" } } });
        expect(r.status).toBe(400);
        expect(r.json.error!.message).toContain("temperature is out of range");
        expect(r.json.error!.provider).toBe("gamma");
        expect(providersHit()).toEqual(["gamma"]);
      });

      test("the circuit opens after consecutive failures and closes after a successful probe", async () => {
        g.mock.setScript({ provider: "alpha" }, { kind: "error", status: 503 });
        const body = { model: "acme/openai-only" };
        for (let i = 0; i < 3; i++) expect((await chat(body)).status).toBe(502);
        const open = await chat(body);
        expect(open.status).toBe(503);
        expect(open.json.error!.code).toBe("no_provider_available");
        expect(providersHit().length).toBe(3);
        g.mock.reset();
        // After the cool-down one probe goes through; its success closes the circuit.
        expect(await eventually(async () => (await chat(body)).status === 200, 3_000)).toBe(true);
        expect((await chat(body)).status).toBe(200);
      });

      /**
       * A streamed call of acme/chat routed by cost, gamma (first, with a good record) scripted to
       * `behaviour` and alpha as its fallback; the response is a 200 ending in [DONE]; gives its text.
       */
      const streamFromGamma = async (behaviour: Parameters<typeof g.mock.setScript>[1]) => {
        g.s.deps.health.recordSuccess("gamma/gamma-chat", { latencyMs: 1 }, Date.now());
        g.mock.setScript({ provider: "gamma" }, behaviour);
        const r = await g.s.fetch("/v1/chat/completions", {
          method: "POST",
          body: JSON.stringify({
            model: "acme/chat",
            stream: true,
            messages: [{ role: "user", content: "x" }],
            gateway: { routing: { optimize: "cost" } },
          }),
        });
        expect(r.status).toBe(200);
        const text = await r.text();
        expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
        return text;
      };

      test("no fallback once streaming has started: the stream ends with an error event", async () => {
        const text = await streamFromGamma({ kind: "reply", text: "one two three four five six", hangAfterChunks: 2 });
        expect(text).toContain('"role":"assistant"');
        expect(text).toContain('"code":"provider_timeout"');
        expect(providersHit()).toEqual(["gamma"]);
        // The server keeps serving.
        expect((await chat({ model: "acme/openai-only" })).status).toBe(200);
      });

      test("a stream whose headers come but whose first token does not (first_byte_timeout_ms) falls back to the next route", async () => {
        const text = await streamFromGamma({ kind: "reply", text: "never sent", hangAfterChunks: 0 });
        expect(text).toContain('"provider":"alpha"');
        expect(text).not.toContain("never sent");
        expect(providersHit()).toEqual(["gamma", "alpha"]);
      });

      test("an Anthropic stream that fails right after message_start still falls back (no content had been sent)", async () => {
        g.mock.setScript(
          { provider: "beta" },
          {
            kind: "sse",
            chunks: [
              'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-solo","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}}}\n\n',
              'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
            ],
          },
        );
        const models = ["acme/anthropic-only", "acme/openai-only"];
        const text = await streamProvider(g, { gateway: { models, routing: { mode: "fallback" } } });
        expect(text).toBe("alpha");
        expect(providersHit()).toEqual(["beta", "alpha"]);
      });

      test("a rejected credential (401) falls back but does not count against the route's circuit", async () => {
        g.mock.setScript({ provider: "alpha" }, { kind: "error", status: 401 });
        for (let i = 0; i < 4; i++) expect((await chat({ model: "acme/openai-only" })).status).toBe(502);
        // Four rejections in a row (threshold 3) and the circuit is still closed: the route is still tried.
        expect(g.s.deps.health.state("alpha/alpha-solo", Date.now())).toBe("closed");
        expect(providersHit()).toHaveLength(4);
      });

      test("every attempt is one request record; only the last is final", async () => {
        g.s.deps.health.recordSuccess("gamma/gamma-chat", { latencyMs: 1 }, Date.now());
        g.mock.setScript({ provider: "gamma" }, { kind: "error", status: 500 });
        const r = await chat(
          { model: "acme/chat", gateway: { routing: { optimize: "cost" }, metadata: { trace_id: "trace-rec-1", tags: ["a"] } } },
          { headers: { "x-request-id": "rec-check-1" } },
        );
        expect(r.status).toBe(200);
        await g.s.deps.records.flush();
        const rows = (await g.s.deps.db.orm.select().from(g.s.deps.db.t.requestRecords))
          .filter((x) => x.requestId === "rec-check-1")
          .sort((a, b) => a.attempt - b.attempt);
        expect(rows.map((x) => [x.attempt, x.provider, x.success, x.isFinalAttempt, x.statusCode])).toEqual([
          [1, "gamma", false, false, 500],
          [2, "alpha", true, true, 200],
        ]);
        expect(rows[1]).toMatchObject({ traceId: "trace-rec-1", tags: '["a"]', costMicrodollars: 25, routingStrategy: "cost" });
      });
    });
  });
}
