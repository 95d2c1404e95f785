// The Responses store's bounds and its off switch: with `responses.store` false nothing is kept and
// previous_response_id behaves as before (a native Responses route that stored the response serves the
// follow-up, elsewhere the documented 400); over `responses.store_max_bytes` a response is not kept, the
// answer says so, and a native route's own copy still serves its follow-ups; several instances on one
// Postgres share what each kept.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { postgresReachable, postgresTestDb } from "../../support/databases";
import { startMockUpstream, type MockUpstream } from "../../support/mock-upstream";
import { gatewayConfig } from "../../support/gateway";
import { startServer, type InProcessServer } from "../../support/server";
import { keptBy, texts } from "./responses-store-support";

let mock: MockUpstream;
beforeAll(async () => {
  mock = await startMockUpstream();
});
afterAll(async () => {
  await mock.stop();
});
beforeEach(() => mock.reset());

const post = async (s: InProcessServer, body: Record<string, unknown>) => {
  const r = await s.fetch("/v1/responses", { method: "POST", body: JSON.stringify(body) });
  return { status: r.status, json: (await r.json()) as Record<string, any> };
};
const stored = {
  id: "resp_upstream_1",
  object: "response",
  status: "completed",
  model: "delta-dual",
  output: [],
  usage: { input_tokens: 1, output_tokens: 1 },
};

describe("responses.store false", () => {
  let s: InProcessServer;
  beforeAll(async () => {
    s = await startServer({ configFile: gatewayConfig(mock, { responses: { store: false } }) });
  });
  afterAll(async () => {
    await s.stop();
  });

  test("nothing is kept: no store, GET 404; a native route's follow-up goes to the route that stored it; a chat route's is the documented 400", async () => {
    expect(s.deps.responseStore).toBeUndefined();
    mock.setScript({ provider: "delta" }, { kind: "error", status: 200, body: stored });
    expect((await post(s, { model: "acme/dual", input: "hi" })).status).toBe(200);
    const next = await post(s, { model: "acme/dual", input: "and then?", previous_response_id: "resp_upstream_1" });
    expect(next.status).toBe(200);
    const sent = mock.requests.at(-1)!.body as Record<string, unknown>;
    expect([sent.previous_response_id, sent.input]).toEqual(["resp_upstream_1", "and then?"]);
    const chat = await post(s, { model: "acme/openai-only", input: "x" });
    expect(chat.status).toBe(200);
    const refused = await post(s, { model: "acme/openai-only", input: "y", previous_response_id: chat.json.id });
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({
      param: "previous_response_id",
      message: "'previous_response_id' is not supported: this gateway keeps no response state; send the whole conversation in 'input'.",
    });
    expect((await s.fetch(`/v1/responses/${chat.json.id}`)).status).toBe(404);
    expect((await s.deps.db.orm.select().from(s.deps.db.t.storedResponses)).length).toBe(0);
  });
});

describe("responses.store_max_bytes", () => {
  let s: InProcessServer;
  beforeAll(async () => {
    // The inference class alone has a limit of its own: the store's routes must show it.
    const limits = { inference: { per_minute: 7_777 }, management_reads: { per_minute: 100_000 } };
    s = await startServer({ configFile: gatewayConfig(mock, { responses: { store_max_bytes: 2048 }, limits }) });
  });
  afterAll(async () => {
    await s.stop();
  });

  test("a call already over the bound is answered with a warning and not kept", async () => {
    const r = await post(s, { model: "acme/openai-only", input: "x".repeat(3000) });
    expect(r.status).toBe(200);
    expect(r.json.routing_metadata.warnings).toContainEqual(expect.objectContaining({ code: "store" }));
    await s.deps.responseStore!.flush();
    expect((await s.fetch(`/v1/responses/${r.json.id}`)).status).toBe(404);
    const small = await post(s, { model: "acme/openai-only", input: "small" });
    expect(small.json.routing_metadata.warnings ?? []).not.toContainEqual(expect.objectContaining({ code: "store" }));
    expect(await keptBy(s, s.workspaceId, small.json.id)).toBe(true);
  });

  test("GET, DELETE and input_items take the inference rate class", async () => {
    for (const [method, path] of [
      ["GET", "/v1/responses/resp_x"],
      ["DELETE", "/v1/responses/resp_x"],
      ["GET", "/v1/responses/resp_x/input_items"],
    ]) {
      const r = await s.fetch(path!, { method });
      expect(`${method} ${path} ${r.status} ${r.headers.get("x-ratelimit-limit-requests")}`).toBe(`${method} ${path} 404 7777`);
    }
  });

  test("a native response the gateway did not keep is still followed up at the route that stored it", async () => {
    mock.setScript(
      { provider: "delta" },
      {
        kind: "error",
        status: 200,
        body: {
          ...stored,
          id: "resp_big",
          output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text: "y".repeat(4000) }] }],
        },
      },
    );
    expect((await post(s, { model: "acme/dual", input: "hi" })).status).toBe(200);
    await s.deps.responseStore!.flush();
    expect((await s.fetch("/v1/responses/resp_big")).status).toBe(404);
    const next = await post(s, { model: "acme/dual", input: "more", previous_response_id: "resp_big" });
    expect(next.status).toBe(200);
    const sent = mock.requests.at(-1)!.body as Record<string, unknown>;
    expect([sent.previous_response_id, sent.input]).toEqual(["resp_big", "more"]);
    // Not on a route that never stored it: OpenAI's 400, naming the ID.
    const elsewhere = await post(s, { model: "acme/openai-only", input: "x", previous_response_id: "resp_big" });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.json.error.message).toBe("Previous response with id 'resp_big' not found.");
  });
});

describe.skipIf(!(await postgresReachable()))("two instances on one Postgres", () => {
  let a: InProcessServer;
  let b: InProcessServer;
  const db = postgresTestDb();
  beforeAll(async () => {
    a = await startServer({ db: "postgres", env: { DATABASE_URL: db.url }, configFile: gatewayConfig(mock) });
    b = await startServer({ db: "postgres", env: { DATABASE_URL: db.url }, configFile: gatewayConfig(mock) });
  });
  afterAll(async () => {
    await a.stop();
    await b.stop();
    await db.cleanup();
  });

  test("what one instance kept, the other serves and continues (once flushed), and a delete on one is seen by the other", async () => {
    const first = await post(a, { model: "acme/anthropic-only", input: "on instance a" });
    expect(await keptBy(a, a.workspaceId, first.json.id)).toBe(true);
    await a.deps.responseStore!.flush();
    const got = await b.fetch(`/v1/responses/${first.json.id}`);
    expect(got.status).toBe(200);
    expect(await got.json()).toEqual(first.json);
    const next = await post(b, { model: "acme/gemini-only", input: "on instance b", previous_response_id: first.json.id });
    expect(next.status).toBe(200);
    expect(texts(mock.requests.at(-1)!.body)).toEqual(["on instance a", "Hello from the mock upstream.", "on instance b"]);
    expect((await b.fetch(`/v1/responses/${first.json.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await a.fetch(`/v1/responses/${first.json.id}`)).status).toBe(404);
  });
});
