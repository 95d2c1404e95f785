// The routing decision kept on each attempt's request record (estimates, exploration, sticky, warnings),
// as the request detail shows it, on SQLite and Postgres: it matches what routing_metadata told the
// client, every attempt of a fallback has its own, and rows stored before it was kept read as null.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testDatabaseKinds } from "../../support/databases";
import { startGateway, type TestGateway } from "../../support/gateway";

const kinds = await testDatabaseKinds();

type Decision = {
  ttft_ms_estimate: number;
  throughput_tps_estimate: number;
  exploration: boolean;
  sticky: boolean;
  warnings: { type: string; code: string; message: string }[];
};
type Detail = { routing_decision: Decision | null; attempts: { provider: string; routing_decision: Decision | null }[] };

for (const kind of kinds) {
  describe(`routing decision on request records (${kind})`, () => {
    let g: TestGateway;
    beforeAll(async () => {
      g = await startGateway({ db: kind });
    });
    afterAll(() => g.stop());

    const chat = async (requestId: string, body: Record<string, unknown>) => {
      const r = await g.s.fetch("/v1/chat/completions", {
        method: "POST",
        headers: { "x-request-id": requestId },
        body: JSON.stringify({ messages: [{ role: "user", content: "hi" }], ...body }),
      });
      expect(r.status).toBe(200);
      return (await r.json()) as { routing_metadata: Decision & Record<string, unknown> };
    };
    const detail = async (requestId: string): Promise<Detail> => {
      await g.s.deps.records.flush();
      const r = await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/requests/${requestId}`);
      expect(r.status).toBe(200);
      return (await r.json()) as Detail;
    };

    test("a routed call's detail shows the estimates and the warning routing_metadata reported", async () => {
      const meta = (await chat("rd-warn-1", { model: "acme/openai-only", service_tier: "priority" })).routing_metadata;
      const d = await detail("rd-warn-1");
      expect(d.routing_decision).toEqual({
        ttft_ms_estimate: meta.ttft_ms_estimate,
        throughput_tps_estimate: meta.throughput_tps_estimate,
        exploration: meta.exploration,
        sticky: meta.sticky,
        warnings: meta.warnings,
      });
      expect(d.routing_decision!.ttft_ms_estimate).toBeGreaterThan(0);
      expect(d.routing_decision!.throughput_tps_estimate).toBeGreaterThan(0);
      expect(d.routing_decision!.warnings).toContainEqual(expect.objectContaining({ type: "unsupported_parameter", code: "service_tier" }));
      expect(d.attempts.map((a) => a.routing_decision)).toEqual([d.routing_decision]);
    });

    test("a call without dropped fields stores an empty warnings list", async () => {
      await chat("rd-plain-1", { model: "acme/openai-only" });
      const d = await detail("rd-plain-1");
      expect(d.routing_decision).toMatchObject({ exploration: false, sticky: false, warnings: [] });
    });

    test("each attempt of a fallback keeps its own route's decision; the top level is the final one's", async () => {
      g.mock.reset();
      g.mock.setScript({ provider: "gamma" }, { kind: "error", status: 500, message: "down" });
      try {
        const meta = (await chat("rd-fallback-1", { model: "acme/chat", gateway: { routing: { optimize: "cost" } } })).routing_metadata;
        const d = await detail("rd-fallback-1");
        expect(d.attempts.length).toBeGreaterThan(1);
        expect(d.attempts[0]!.provider).toBe("gamma");
        for (const a of d.attempts) expect(a.routing_decision?.ttft_ms_estimate).toBeGreaterThan(0);
        expect(d.routing_decision).toEqual(d.attempts.at(-1)!.routing_decision);
        expect(d.routing_decision!.ttft_ms_estimate).toBe(meta.ttft_ms_estimate);
      } finally {
        g.mock.reset();
      }
    });

    test("rows stored before the column existed (null) still read, as routing_decision null", async () => {
      const db = g.s.deps.db;
      await db.orm.insert(db.t.requestRecords).values({
        id: "rec_rd_old_1",
        requestId: "rd-old-1",
        attempt: 1,
        workspaceId: g.s.workspaceId,
        createdAt: Date.now(),
        endpoint: "chat_completions",
        model: "acme/openai-only",
        modelCanonical: "acme/openai-only",
        provider: "alpha",
        providerModelId: "alpha-solo",
        apiKeyId: null,
        apiKeySource: "platform",
        statusCode: 200,
        success: true,
        isFinalAttempt: true,
        latencyMs: 10,
        ttftMs: 5,
        inputTokens: 1,
        outputTokens: 2,
        cachedTokens: 0,
        reasoningTokens: 0,
        costMicrodollars: 3,
        routingStrategy: "cost-focus",
        errorCode: null,
        traceId: null,
        userId: null,
        tags: null,
        customFields: null,
      });
      const d = await detail("rd-old-1");
      expect(d.routing_decision).toBeNull();
      expect(d.attempts.map((a) => a.routing_decision)).toEqual([null]);
      const list = await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/requests?limit=100`);
      const rows = ((await list.json()) as { requests: Record<string, unknown>[] }).requests;
      expect(rows.some((r) => r.request_id === "rd-old-1")).toBe(true);
      expect(rows.every((r) => !("routing_decision" in r))).toBe(true);
    });
  });
}
