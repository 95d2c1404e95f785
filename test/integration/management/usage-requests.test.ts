import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testDatabaseKinds } from "../../support/databases";
import { addCredits } from "../../../src/cli/credits";
import { openSession, type Session } from "./harness";

const kinds = await testDatabaseKinds();
const RECORD_FIELDS = [
  "api_key_id",
  "api_key_source",
  "attempt",
  "cached_tokens",
  "cost_microdollars",
  "created_at",
  "custom_fields",
  "endpoint",
  "error_code",
  "input_tokens",
  "is_final_attempt",
  "latency_ms",
  "model",
  "model_canonical",
  "output_tokens",
  "provider",
  "provider_model_id",
  "reasoning_tokens",
  "request_id",
  "routing_strategy",
  "status_code",
  "success",
  "tags",
  "trace_id",
  "ttft_ms",
  "usage_estimated",
  "user_id",
].sort();
const T0 = Date.parse("2026-04-10T12:00:00Z");
const DAY = 86_400_000;

for (const kind of kinds) {
  describe(`usage, requests and billing on ${kind}`, () => {
    let x: Session;
    beforeAll(async () => {
      x = await openSession(kind);
      await x.insertRollups([
        {
          day: "2026-04-01",
          model: "m-a",
          provider: "alpha",
          apiKeyId: "k1",
          requests: 4,
          errors: 1,
          inputTokens: 40,
          outputTokens: 80,
          costMicrodollars: 400,
        },
        {
          day: "2026-04-02",
          model: "m-a",
          provider: "gamma",
          apiKeyId: "k2",
          requests: 2,
          errors: 0,
          inputTokens: 20,
          outputTokens: 40,
          costMicrodollars: 200,
        },
        {
          day: "2026-04-02",
          model: "m-b",
          provider: "alpha",
          apiKeyId: "k1",
          requests: 1,
          errors: 1,
          inputTokens: 5,
          outputTokens: 0,
          costMicrodollars: 0,
        },
        {
          day: "2026-05-01",
          model: "m-b",
          provider: "alpha",
          apiKeyId: "k1",
          requests: 9,
          errors: 0,
          inputTokens: 90,
          outputTokens: 90,
          costMicrodollars: 900,
        },
      ]);
      await x.insertRecords([
        // One call, two attempts: the first failed upstream, the fallback succeeded.
        {
          requestId: "req_call_one",
          attempt: 1,
          isFinalAttempt: false,
          success: false,
          statusCode: 503,
          provider: "gamma",
          costMicrodollars: 0,
          createdAt: T0,
          traceId: "trace-1",
          errorCode: "provider_error",
        },
        {
          requestId: "req_call_one",
          attempt: 2,
          isFinalAttempt: true,
          success: true,
          provider: "alpha",
          createdAt: T0 + 5,
          traceId: "trace-1",
          tags: JSON.stringify(["a", "b"]),
          customFields: JSON.stringify({ team: "x" }),
        },
        {
          requestId: "req_call_two",
          model: "chat-small",
          modelCanonical: "acme/chat-small",
          apiKeySource: "byok",
          success: false,
          statusCode: 429,
          createdAt: T0 + DAY,
        },
        { requestId: "req_call_three", model: "other/model", modelCanonical: "other/model", provider: "gamma", createdAt: T0 + 2 * DAY },
      ]);
    });
    afterAll(async () => {
      await x.stop();
    });

    const usage = (q: string) => x.call("GET", x.w(`/usage?${q}`));
    const requests = (q = "") => x.call("GET", x.w(`/requests${q ? `?${q}` : ""}`));

    test("usage groups by model (default), provider, api_key and day over an inclusive date range", async () => {
      const r = await usage("start_date=2026-04-01&end_date=2026-04-30");
      expect(r.status).toBe(200);
      expect(r.json).toEqual({
        group_by: "model",
        start_date: "2026-04-01",
        end_date: "2026-04-30",
        data: [
          { group: "m-a", requests: 6, errors: 1, input_tokens: 60, output_tokens: 120, total_tokens: 180, cost_microdollars: 600 },
          { group: "m-b", requests: 1, errors: 1, input_tokens: 5, output_tokens: 0, total_tokens: 5, cost_microdollars: 0 },
        ],
        total: { requests: 7, errors: 2, input_tokens: 65, output_tokens: 120, total_tokens: 185, cost_microdollars: 600 },
      });
      const groups = async (q: string) => (await usage(q)).json.data.map((d: { group: string }) => d.group);
      expect(await groups("start_date=2026-04-01&end_date=2026-04-30&group_by=provider")).toEqual(["alpha", "gamma"]);
      expect(await groups("start_date=2026-04-01&end_date=2026-05-31&group_by=api_key")).toEqual(["k1", "k2"]);
      expect(await groups("start_date=2026-04-02&end_date=2026-05-01&group_by=day")).toEqual(["2026-04-02", "2026-05-01"]);
      expect((await usage("start_date=2026-04-01&end_date=2026-04-01")).json.total.requests).toBe(4);
    });

    test("usage parameters: bad group_by or dates are 400 naming them", async () => {
      for (const [q, param] of [
        ["group_by=user", "group_by"],
        ["start_date=April", "start_date"],
        ["end_date=2026-02-30", "end_date"],
        ["start_date=2026-05-01&end_date=2026-04-01", "end_date"],
      ] as const) {
        const r = await usage(q);
        expect(r.status).toBe(400);
        expect(r.json.error).toMatchObject({ code: "invalid_parameter", param });
      }
      const dflt = await x.call("GET", x.w("/usage"));
      expect(dflt.json.end_date).toBe(new Date().toISOString().slice(0, 10));
    });

    test("request list: final attempts by default, newest first, with total/limit/offset", async () => {
      const r = await requests();
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ count: 3, total: 3, limit: 100, offset: 0 });
      expect(r.json.requests.map((q: { request_id: string }) => q.request_id)).toEqual(["req_call_three", "req_call_two", "req_call_one"]);
      expect(Object.keys(r.json.requests[0]).sort()).toEqual(RECORD_FIELDS);
      const one = r.json.requests[2];
      expect(one).toMatchObject({
        attempt: 2,
        is_final_attempt: true,
        tags: ["a", "b"],
        custom_fields: { team: "x" },
        trace_id: "trace-1",
      });
      const page = await requests("limit=1&offset=1");
      expect(page.json).toMatchObject({ count: 1, total: 3, limit: 1, offset: 1 });
      expect(page.json.requests[0].request_id).toBe("req_call_two");
    });

    test("request list filters", async () => {
      const ids = async (q: string) =>
        (await requests(q)).json.requests.map((r: { request_id: string; attempt: number }) => `${r.request_id}#${r.attempt}`);
      expect(await ids("model=acme/chat-small")).toEqual(["req_call_two#1", "req_call_one#2"]);
      expect(await ids("model=chat-small")).toEqual(["req_call_two#1"]);
      expect(await ids("provider=gamma")).toEqual(["req_call_three#1"]);
      expect(await ids("trace_id=trace-1")).toEqual(["req_call_one#2"]);
      expect(await ids("success=false")).toEqual(["req_call_two#1"]);
      expect(await ids("api_key_source=byok")).toEqual(["req_call_two#1"]);
      expect(await ids("is_final_attempt=false")).toEqual(["req_call_one#1"]);
      expect(await ids("start_date=2026-04-11&end_date=2026-04-11")).toEqual(["req_call_two#1"]);
      expect(await ids("start_date=2026-04-11T00:00:00Z")).toEqual(["req_call_three#1", "req_call_two#1"]);
    });

    test("request list bounds: limit 1..100, offset ≥ 0, typed filters (400 naming the parameter)", async () => {
      for (const [q, param] of [
        ["limit=0", "limit"],
        ["limit=101", "limit"],
        ["limit=ten", "limit"],
        ["offset=-1", "offset"],
        ["success=maybe", "success"],
        ["api_key_source=team", "api_key_source"],
        ["is_final_attempt=2", "is_final_attempt"],
        ["start_date=yesterday", "start_date"],
      ] as const) {
        const r = await requests(q);
        expect(r.status).toBe(400);
        expect(r.json.error).toMatchObject({ code: "invalid_parameter", param });
      }
      expect((await requests("limit=100&offset=0")).status).toBe(200);
    });

    test("request detail: the final attempt with attempts[], audited as request.detail.read", async () => {
      const r = await x.call("GET", x.w("/requests/req_call_one"));
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ request_id: "req_call_one", attempt: 2, provider: "alpha", success: true });
      expect(
        r.json.attempts.map((a: { attempt: number; provider: string; status_code: number }) => [a.attempt, a.provider, a.status_code]),
      ).toEqual([
        [1, "gamma", 503],
        [2, "alpha", 200],
      ]);
      const audit = (await x.auditRows()).filter((a) => a.type === "request.detail.read");
      expect(audit.at(-1)?.targetId).toBe("req_call_one");
      expect((await x.call("GET", x.w("/requests/req_missing"))).status).toBe(404);
    });

    test("another workspace cannot read these requests", async () => {
      const other = await x.otherWorkspace();
      const r = await x.call("GET", `/v1/workspaces/${other.ws}/requests/req_call_one`, { key: other.key });
      expect(r.status).toBe(404);
      expect((await x.call("GET", `/v1/workspaces/${other.ws}/requests`, { key: other.key })).json.total).toBe(0);
      expect((await x.call("GET", `/v1/workspaces/${other.ws}/usage?start_date=2026-04-01`, { key: other.key })).json.data).toEqual([]);
    });

    test("billing balance is the sum of the credit ledger, CLI top-ups included", async () => {
      let r = await x.call("GET", x.w("/billing/balance"));
      expect(r.status).toBe(200);
      expect(Object.keys(r.json).sort()).toEqual(["balance_microdollars", "currency", "updated_at", "workspace_id"]);
      expect(r.json).toMatchObject({ workspace_id: x.ws, balance_microdollars: 0, currency: "USD" });
      await addCredits(x.s.deps.db, x.ws, "12.5");
      await addCredits(x.s.deps.db, x.ws, "-0.25");
      await x.s.deps.db.orm.insert(x.s.deps.db.t.creditLedger).values({
        id: crypto.randomUUID(),
        workspaceId: x.ws,
        amountMicrodollars: -1_000,
        reason: "request",
        requestId: "req_call_one",
        createdAt: Date.now(),
      });
      r = await x.call("GET", x.w("/billing/balance"));
      expect(r.json.balance_microdollars).toBe(12_249_000);
    });
  });
}
