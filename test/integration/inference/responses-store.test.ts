// Issue 55 item 6: the gateway keeps Responses (store true, the API's default) and resolves
// previous_response_id on any route by replaying the kept items; GET / DELETE /v1/responses/{id} and
// the input_items list; workspaces never see each other's; on SQLite and Postgres.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { testDatabaseKinds } from "../../support/databases";
import { startMockUpstream, type MockUpstream } from "../../support/mock-upstream";
import { gatewayConfig } from "../../support/gateway";
import { startServer, type InProcessServer } from "../../support/server";
import { keptBy, otherWorkspaceKey, parseSse, texts } from "./responses-store-support";

const kinds = await testDatabaseKinds();

for (const kind of kinds) {
  describe(`Responses store on ${kind}`, () => {
    let mock: MockUpstream;
    let s: InProcessServer;
    beforeAll(async () => {
      mock = await startMockUpstream();
      s = await startServer({ db: kind, configFile: gatewayConfig(mock) });
    });
    afterAll(async () => {
      await s.stop();
      await mock.stop();
    });
    beforeEach(() => mock.reset());

    const post = async (body: Record<string, unknown>, key?: string) => {
      const r = await s.fetch("/v1/responses", { method: "POST", body: JSON.stringify(body), ...(key ? { key } : {}) });
      return { status: r.status, json: (await r.json()) as Record<string, any> };
    };
    const get = async (path: string, init: { method?: string; key?: string } = {}) => {
      const r = await s.fetch(path, init);
      return { status: r.status, json: (await r.json()) as Record<string, any> };
    };
    const kept = (id: string) => keptBy(s, s.workspaceId, id);

    test("a follow-up on an Anthropic route gets the earlier turns; a third turn gets all of them (one lookup: the kept input is resolved)", async () => {
      const first = await post({ model: "acme/anthropic-only", input: "first question" });
      expect(first.status).toBe(200);
      expect(await kept(first.json.id)).toBe(true);
      const second = await post({ model: "acme/anthropic-only", previous_response_id: first.json.id, input: "second question" });
      expect(second.status).toBe(200);
      expect(second.json.previous_response_id).toBe(first.json.id);
      const sent = mock.requests.at(-1)!.body as { messages: { role: string }[] };
      expect(sent.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
      expect(texts(sent)).toEqual(["first question", "Hello from the mock upstream.", "second question"]);
      expect(await kept(second.json.id)).toBe(true);
      const third = await post({ model: "acme/anthropic-only", previous_response_id: second.json.id, input: "third" });
      expect(third.status).toBe(200);
      expect(texts(mock.requests.at(-1)!.body)).toEqual([
        "first question",
        "Hello from the mock upstream.",
        "second question",
        "Hello from the mock upstream.",
        "third",
      ]);
    });

    test("the conversation moves across wires: kept on Gemini, continued on an OpenAI chat route", async () => {
      const first = await post({ model: "acme/gemini-only", instructions: "be brief", input: [{ role: "user", content: "on gemini" }] });
      expect(first.status).toBe(200);
      expect(await kept(first.json.id)).toBe(true);
      const second = await post({ model: "acme/openai-only", previous_response_id: first.json.id, input: "on chat" });
      expect(second.status).toBe(200);
      const sent = mock.requests.at(-1)!;
      expect(sent.provider).toBe("alpha");
      // Instructions are not carried over (OpenAI's rule for previous_response_id).
      expect((sent.body as { messages: { role: string; content: unknown }[] }).messages).toEqual([
        { role: "user", content: "on gemini" },
        { role: "assistant", content: "Hello from the mock upstream." },
        { role: "user", content: "on chat" },
      ]);
    });

    test("a native Responses route gets the whole input and no previous_response_id (the gateway's copy replaces the upstream's)", async () => {
      const first = await post({ model: "acme/dual", input: "native first" });
      expect(first.status).toBe(200);
      expect(mock.requests.at(-1)!.route).toBe("responses");
      expect(await kept(first.json.id)).toBe(true);
      const second = await post({ model: "acme/dual", previous_response_id: first.json.id, input: "native second" });
      expect(second.status).toBe(200);
      const sent = mock.requests.at(-1)!.body as Record<string, unknown>;
      expect(sent.previous_response_id).toBeUndefined();
      expect(sent.input).toEqual([
        { type: "message", role: "user", content: [{ type: "input_text", text: "native first" }] },
        ...(first.json.output as unknown[]),
        { type: "message", role: "user", content: [{ type: "input_text", text: "native second" }] },
      ]);
    });

    test("reasoning items are kept as the client got them (encrypted_content included) and replayed to the next turn", async () => {
      const output = [
        { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Thinking." }], encrypted_content: "gAAAAB-opaque" },
        { type: "function_call", id: "fc_1", call_id: "call_1", name: "ls", arguments: "{}", status: "completed" },
      ];
      const answer = {
        id: "resp_reasoned",
        object: "response",
        status: "completed",
        model: "delta-dual",
        output,
        usage: { input_tokens: 1, output_tokens: 1 },
      };
      mock.setScript({ provider: "delta" }, { kind: "error", status: 200, body: answer });
      const first = await post({ model: "acme/dual", input: "list", include: ["reasoning.encrypted_content"] });
      expect(first.json.output).toEqual(output);
      expect(await kept("resp_reasoned")).toBe(true);
      mock.reset();
      const result = { type: "function_call_output", call_id: "call_1", output: "a.txt" };
      expect((await post({ model: "acme/dual", previous_response_id: "resp_reasoned", input: [result] })).status).toBe(200);
      expect((mock.requests.at(-1)!.body as { input: unknown[] }).input).toEqual([
        { type: "message", role: "user", content: [{ type: "input_text", text: "list" }] },
        ...output,
        result,
      ]);
    });

    test("a stream is kept as its response.completed carried it, and GET serves that response", async () => {
      const r = await s.fetch("/v1/responses", {
        method: "POST",
        body: JSON.stringify({ model: "acme/anthropic-only", input: "stream me", stream: true }),
      });
      expect(r.status).toBe(200);
      const events = parseSse(await r.text());
      const completed = events.find(([name]) => name === "response.completed")![1].response as Record<string, unknown>;
      expect(await kept(completed.id as string)).toBe(true);
      const got = await get(`/v1/responses/${completed.id}`);
      expect(got.status).toBe(200);
      expect(got.json).toEqual(completed);
      const next = await post({ model: "acme/gemini-only", previous_response_id: completed.id, input: "after the stream" });
      expect(next.status).toBe(200);
      expect(JSON.stringify(mock.requests.at(-1)!.body)).toContain("stream me");
    });

    test("a native Responses stream is kept from the upstream's response.completed, routing_metadata included", async () => {
      const r = await s.fetch("/v1/responses", {
        method: "POST",
        body: JSON.stringify({ model: "acme/dual", input: "native stream", stream: true }),
      });
      expect(r.status).toBe(200);
      expect(mock.requests.at(-1)!.route).toBe("responses");
      const completed = parseSse(await r.text()).find(([name]) => name === "response.completed")![1].response as Record<string, any>;
      expect(completed.routing_metadata.provider).toBe("delta");
      expect(await kept(completed.id)).toBe(true);
      expect((await get(`/v1/responses/${completed.id}`)).json).toEqual(completed);
      const next = await post({ model: "acme/anthropic-only", previous_response_id: completed.id, input: "now on anthropic" });
      expect(next.status).toBe(200);
      expect(texts(mock.requests.at(-1)!.body)).toEqual(["native stream", "Hello from the mock upstream.", "now on anthropic"]);
    });

    test("GET returns the response as first sent; input_items lists what the model saw; DELETE removes it; then 404 and the 400", async () => {
      const first = await post({ model: "acme/openai-only", input: "keep me" });
      expect(await kept(first.json.id)).toBe(true);
      const second = await post({ model: "acme/openai-only", previous_response_id: first.json.id, input: "and me" });
      expect(await kept(second.json.id)).toBe(true);
      const got = await get(`/v1/responses/${second.json.id}`);
      expect(got.status).toBe(200);
      expect(got.json).toEqual(second.json);
      const items = await get(`/v1/responses/${second.json.id}/input_items?order=asc`);
      expect(items.status).toBe(200);
      expect(items.json.object).toBe("list");
      expect(items.json.data.map((i: { type: string; role?: string }) => `${i.type}:${i.role}`)).toEqual([
        "message:user",
        "message:assistant",
        "message:user",
      ]);
      expect(items.json.has_more).toBe(false);
      expect(items.json.first_id).toBe(items.json.data[0].id);
      const page = await get(`/v1/responses/${second.json.id}/input_items?limit=2`);
      expect(page.json.data.map((i: { id: string }) => i.id)).toEqual(
        items.json.data
          .map((i: { id: string }) => i.id)
          .reverse()
          .slice(0, 2),
      );
      expect(page.json.has_more).toBe(true);
      const rest = await get(`/v1/responses/${second.json.id}/input_items?limit=2&after=${page.json.last_id}`);
      expect(rest.json.data).toHaveLength(1);
      expect(rest.json.has_more).toBe(false);

      const del = await get(`/v1/responses/${first.json.id}`, { method: "DELETE" });
      expect(del).toEqual({ status: 200, json: { id: first.json.id, object: "response", deleted: true } });
      const gone = await get(`/v1/responses/${first.json.id}`);
      expect(gone.status).toBe(404);
      expect(gone.json.error).toMatchObject({
        code: "not_found",
        type: "invalid_request_error",
        message: `Response with id '${first.json.id}' not found.`,
      });
      expect((await get(`/v1/responses/${first.json.id}`, { method: "DELETE" })).status).toBe(404);
      const follow = await post({ model: "acme/openai-only", previous_response_id: first.json.id, input: "x" });
      expect(follow.status).toBe(400);
      expect(follow.json.error).toMatchObject({
        code: "invalid_parameter",
        param: "previous_response_id",
        message: `Previous response with id '${first.json.id}' not found.`,
      });
      // The chain's later response keeps its resolved input: deleting an earlier one does not break it.
      expect((await post({ model: "acme/openai-only", previous_response_id: second.json.id, input: "y" })).status).toBe(200);
    });

    test("another workspace's response is never found: GET and DELETE 404, previous_response_id 400", async () => {
      const mine = await post({ model: "acme/openai-only", input: "private" });
      expect(await kept(mine.json.id)).toBe(true);
      const other = await otherWorkspaceKey(s);
      expect((await get(`/v1/responses/${mine.json.id}`, { key: other })).status).toBe(404);
      expect((await get(`/v1/responses/${mine.json.id}/input_items`, { key: other })).status).toBe(404);
      expect((await get(`/v1/responses/${mine.json.id}`, { method: "DELETE", key: other })).status).toBe(404);
      const follow = await post({ model: "acme/openai-only", previous_response_id: mine.json.id, input: "x" }, other);
      expect(follow.status).toBe(400);
      expect(follow.json.error.param).toBe("previous_response_id");
      expect((await get(`/v1/responses/${mine.json.id}`)).status).toBe(200);
    });

    test("store: false is not kept (but may follow a kept one); an unknown ID is OpenAI's 400; no key is a 401", async () => {
      const first = await post({ model: "acme/openai-only", input: "kept" });
      expect(await kept(first.json.id)).toBe(true);
      const unkept = await post({ model: "acme/openai-only", input: "not kept", store: false, previous_response_id: first.json.id });
      expect(unkept.status).toBe(200);
      expect(texts(mock.requests.at(-1)!.body)).toEqual(["kept", "Hello from the mock upstream.", "not kept"]);
      await s.deps.responseStore!.flush();
      expect((await get(`/v1/responses/${unkept.json.id}`)).status).toBe(404);
      const unknown = await post({ model: "acme/anthropic-only", previous_response_id: "resp_nope", input: "x" });
      expect(unknown.status).toBe(400);
      expect(unknown.json.error.message).toBe("Previous response with id 'resp_nope' not found.");
      expect((await get(`/v1/responses/${first.json.id}`, { key: null as unknown as string })).status).toBe(401);
    });

    test("the routes are in the OpenAPI document and take the inference rate class (the API key's bucket)", async () => {
      const spec = (await (await s.fetch("/openapi.json")).json()) as { paths: Record<string, Record<string, unknown>> };
      expect(Object.keys(spec.paths["/v1/responses/{response_id}"] ?? {}).sort()).toEqual(["delete", "get"]);
      expect(Object.keys(spec.paths["/v1/responses/{response_id}/input_items"] ?? {})).toEqual(["get"]);
      const r = await s.fetch("/v1/responses/resp_none");
      expect(r.status).toBe(404);
      expect(r.headers.get("x-ratelimit-limit-requests")).toBe("1000000");
    });

    test("kept rows reach the database (the write-behind queue flushes), and expired ones are neither found nor kept by the sweep", async () => {
      const first = await post({ model: "acme/openai-only", input: "to the database" });
      expect(await kept(first.json.id)).toBe(true);
      const store = s.deps.responseStore!;
      await store.flush();
      expect(store.queued()).toBe(0);
      const t = s.deps.db.t.storedResponses;
      const rows = await s.deps.db.orm.select().from(t);
      const row = rows.find((r) => r.id === first.json.id)!;
      expect(row.workspaceId).toBe(s.workspaceId);
      expect(row.expiresAt - row.createdAt).toBe(720 * 3_600_000);
      expect(JSON.parse(row.response)).toEqual(first.json);
      const later = row.expiresAt + 1;
      expect(await store.find(s.workspaceId, first.json.id, later)).toBeNull();
      expect(await store.sweep(later)).toBeGreaterThanOrEqual(1);
      expect((await s.deps.db.orm.select().from(t)).some((r) => r.id === first.json.id)).toBe(false);
    });
  });
}
