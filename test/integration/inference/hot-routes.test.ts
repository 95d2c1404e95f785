// With tuning on the inference POSTs are served from Bun's route table (src/http/hot-routes.ts) while their
// Elysia routes stay registered for the OpenAPI document and app.handle. These tests hold the two paths to
// the same answers and check the edge steps the hot path runs itself, so they ask for tuning on (the suite
// also runs with SWITCHYARD_TUNING=off, where the listening server has no hot routes).
// test/integration/edge/hot-routes-switch.test.ts compares the listening server's answers both ways.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createApp } from "../../../src/app";
import { startGateway, type TestGateway } from "../../support/gateway";

let g: TestGateway;
let app: ReturnType<typeof createApp>;
beforeAll(async () => {
  g = await startGateway({ env: { SWITCHYARD_TUNING: "on" } });
  app = createApp(g.s.deps);
  // A key the cache does not hold yet is rate-limited by address before its lookup: warm it.
  await g.s.fetch("/v1/models");
});
afterAll(() => g.stop());
beforeEach(() => g.mock.reset());

const msgs = [{ role: "user", content: "hi" }];

/** The same request through the listening server (hot route) and through Elysia's app.handle. */
async function both(path: string, body: string, headers: Record<string, string> = {}) {
  const init = () => ({
    method: "POST",
    body,
    headers: { authorization: `Bearer ${g.s.adminKey}`, "content-type": "application/json", ...headers },
  });
  const served = await fetch(g.s.url + path, init());
  const handled = await app.handle(new Request(`http://local${path}`, init()));
  return { served, handled };
}

describe("a hot route answers as the Elysia route it stands in front of", () => {
  const cases: [string, string, string][] = [
    ["chat: a field of the wrong type", "/v1/chat/completions", JSON.stringify({ model: "acme/chat", messages: msgs, temperature: "hot" })],
    ["chat: a role that does not exist", "/v1/chat/completions", JSON.stringify({ model: "acme/chat", messages: [{ role: "robot" }] })],
    ["chat: malformed JSON", "/v1/chat/completions", '{"model": "acme/chat", "messages": ['],
    ["chat: an unknown model", "/v1/chat/completions", JSON.stringify({ model: "acme/nothing", messages: msgs })],
    ["responses: a missing input", "/v1/responses", JSON.stringify({ model: "acme/chat" })],
    // acme/openai-only has no Anthropic route: the gateway's translation validates the body.
    [
      "messages: a missing max_tokens (Anthropic's error shape)",
      "/v1/messages",
      JSON.stringify({ model: "acme/openai-only", messages: msgs }),
    ],
    ["messages: malformed JSON (Anthropic's error shape)", "/v1/messages", "{"],
  ];
  for (const [name, path, body] of cases) {
    test(name, async () => {
      // One client request id for both, so that bodies quoting it (Anthropic's shape) compare equal.
      const { served, handled } = await both(path, body, { "x-request-id": "same-id-both-paths" });
      expect(served.status).toBe(handled.status);
      expect(served.status).toBeGreaterThanOrEqual(400);
      expect(await served.json()).toEqual(await handled.json());
      expect(served.headers.get("x-request-id")).toBe("same-id-both-paths");
      expect(served.headers.get("x-ratelimit-limit-requests")).toBe(handled.headers.get("x-ratelimit-limit-requests"));
      expect(served.headers.get("content-type")).toBe(handled.headers.get("content-type"));
    });
  }

  test("a successful JSON completion carries the same content, headers and request id rule", async () => {
    const body = JSON.stringify({ model: "acme/openai-only", messages: msgs });
    const { served, handled } = await both("/v1/chat/completions", body, { "x-request-id": "client-id-1" });
    expect(served.status).toBe(200);
    expect(handled.status).toBe(200);
    const [a, b] = (await Promise.all([served.json(), handled.json()])) as { choices: unknown; model: string }[];
    expect(a!.choices).toEqual(b!.choices);
    expect(a!.model).toBe(b!.model);
    for (const h of ["content-type", "x-request-id", "x-ratelimit-limit-requests"])
      expect(served.headers.get(h)).toBe(handled.headers.get(h));
    expect(served.headers.get("x-request-id")).toBe("client-id-1");
  });
});

describe("the hot path runs the edge steps itself", () => {
  test("rate-limit headers reach the client on an error answered after the limit check", async () => {
    const { served } = await both("/v1/chat/completions", JSON.stringify({ model: "acme/nothing", messages: msgs }));
    expect(served.status).toBe(404);
    expect(served.headers.get("x-ratelimit-limit-requests")).toBeTruthy();
    expect(served.headers.get("x-ratelimit-remaining-requests")).toBeTruthy();
  });

  test("a missing key is 401 invalid_api_key with a request id", async () => {
    const r = await fetch(g.s.url + "/v1/chat/completions", {
      method: "POST",
      body: JSON.stringify({ model: "acme/chat", messages: msgs }),
    });
    expect(r.status).toBe(401);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe("invalid_api_key");
    expect(r.headers.get("x-request-id")).toMatch(/^req_/);
  });

  test("a JSON body is read as JSON whatever its Content-Type says (curl -d sends a form type)", async () => {
    const r = await g.s.fetch("/v1/chat/completions", {
      method: "POST",
      body: JSON.stringify({ model: "acme/openai-only", messages: msgs }),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(r.status).toBe(200);
  });

  test("other methods on an inference path still reach Elysia's 404", async () => {
    const r = await g.s.fetch("/v1/chat/completions", { method: "GET" });
    expect(r.status).toBe(404);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe("not_found");
  });

  test("the request log line is written for a hot route", async () => {
    await g.s.fetch("/v1/chat/completions", { method: "POST", body: "{", headers: { "x-request-id": "log-line-probe" } });
    const line = g.s.logs.find((l) => l.includes('"log-line-probe"') && l.includes('"msg":"request"'));
    expect(line).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({ method: "POST", path: "/v1/chat/completions", status: 400 });
  });
});
