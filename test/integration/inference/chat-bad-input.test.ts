import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { startGateway, type TestGateway } from "../../support/gateway";

let g: TestGateway;
beforeAll(async () => {
  g = await startGateway();
});
afterAll(() => g.stop());
beforeEach(() => g.mock.reset());

type Err = { error: { code: string; param: string | null; message: string; type: string; doc_url: string } };
async function post(body: unknown, raw?: string) {
  const r = await g.s.fetch("/v1/chat/completions", { method: "POST", body: raw ?? JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as Err, rid: r.headers.get("x-request-id") };
}
const msgs = [{ role: "user", content: "hi" }];

describe("bad input gets a clear error in the envelope", () => {
  test("malformed JSON is 400 invalid_request", async () => {
    const r = await post(null, '{"model": "acme/chat", "messages": [');
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("invalid_request");
    expect(r.rid).toBeTruthy();
  });

  const cases: [string, Record<string, unknown>, number, string, string | null][] = [
    ["empty messages", { model: "acme/chat", messages: [] }, 400, "invalid_parameter", "messages"],
    ["messages of the wrong type", { model: "acme/chat", messages: "hi" }, 400, "invalid_parameter", "messages"],
    ["temperature of the wrong type", { model: "acme/chat", messages: msgs, temperature: "hot" }, 400, "invalid_parameter", "temperature"],
    [
      "an unknown field in gateway.metadata",
      { model: "acme/chat", messages: msgs, gateway: { metadata: { colour: "red" } } },
      400,
      "invalid_parameter",
      "gateway.metadata.colour",
    ],
    [
      "a role that does not exist",
      { model: "acme/chat", messages: [{ role: "robot", content: "x" }] },
      400,
      "invalid_parameter",
      "messages[0].role",
    ],
    [
      "a tag over 50 characters",
      { model: "acme/chat", messages: msgs, gateway: { metadata: { tags: ["a", "b", "c", "x".repeat(51)] } } },
      400,
      "invalid_parameter",
      "gateway.metadata.tags[3]",
    ],
    [
      "more than 100 tags",
      { model: "acme/chat", messages: msgs, gateway: { metadata: { tags: Array(101).fill("t") } } },
      400,
      "invalid_parameter",
      "gateway.metadata.tags",
    ],
    [
      "user_id over 255",
      { model: "acme/chat", messages: msgs, gateway: { metadata: { user_id: "u".repeat(256) } } },
      400,
      "invalid_parameter",
      "gateway.metadata.user_id",
    ],
    [
      "more than 10 custom fields",
      {
        model: "acme/chat",
        messages: msgs,
        gateway: { metadata: { custom_fields: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, "v"])) } },
      },
      400,
      "invalid_parameter",
      "gateway.metadata.custom_fields",
    ],
    [
      "a custom field value over 200",
      { model: "acme/chat", messages: msgs, gateway: { metadata: { custom_fields: { k: "v".repeat(201) } } } },
      400,
      "invalid_parameter",
      "gateway.metadata.custom_fields.k",
    ],
    [
      "a custom field key over 50 characters",
      { model: "acme/chat", messages: msgs, gateway: { metadata: { custom_fields: { ["k".repeat(51)]: "v" } } } },
      400,
      "invalid_parameter",
      `gateway.metadata.custom_fields.${"k".repeat(51)}`,
    ],
    [
      "a NUL in a custom field key (Postgres text cannot hold it)",
      { model: "acme/chat", messages: msgs, gateway: { metadata: { custom_fields: { "a\u0000b": "v" } } } },
      400,
      "invalid_parameter",
      "gateway.metadata.custom_fields.a\\u0000b",
    ],
    [
      "a NUL in a tag",
      { model: "acme/chat", messages: msgs, gateway: { metadata: { tags: ["ok", "x\u0000"] } } },
      400,
      "invalid_parameter",
      "gateway.metadata.tags[1]",
    ],
    [
      "a NUL in a message's content",
      { model: "acme/chat", messages: [{ role: "user", content: "hi\u0000" }] },
      400,
      "invalid_parameter",
      "messages[0].content",
    ],
    [
      "both model and gateway.models",
      { model: "acme/chat", messages: msgs, gateway: { models: ["acme/chat"] } },
      400,
      "invalid_parameter",
      "model",
    ],
    [
      "more than 10 gateway.models",
      { messages: msgs, gateway: { models: Array(11).fill("acme/chat") } },
      400,
      "invalid_parameter",
      "gateway.models",
    ],
    [
      "an unknown optimize value",
      { model: "acme/chat", messages: msgs, gateway: { routing: { optimize: "fastest" } } },
      400,
      "invalid_parameter",
      "gateway.routing.optimize",
    ],
    ["no model at all", { messages: msgs }, 400, "invalid_parameter", "model"],
    ["an unknown model", { model: "nope/none", messages: msgs }, 404, "model_not_found", "model"],
    [
      "an unknown model among gateway.models",
      { messages: msgs, gateway: { models: ["acme/chat", "nope/none"] } },
      404,
      "model_not_found",
      "gateway.models[1]",
    ],
    ["a model with no routable provider", { model: "acme/unroutable", messages: msgs }, 503, "no_provider_available", null],
  ];
  for (const [name, body, status, code, param] of cases) {
    test(`${name} → ${status} ${code}${param ? ` (param ${param})` : ""}`, async () => {
      const r = await post(body);
      expect(r.status).toBe(status);
      expect(r.body.error.code).toBe(code);
      if (param !== null) expect(r.body.error.param).toBe(param);
      expect(r.body.error.doc_url).toBe(`/docs/errors#${code}`);
    });
  }

  test("JSON nested 100k deep is 400 invalid_request, not a 500 with a stack trace", async () => {
    const r = await post(null, `{"model": "acme/chat", "messages": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("invalid_request");
    const justUnder = await post(null, JSON.stringify({ model: "acme/chat", messages: msgs, extensions: { x: { a: [[[[1]]]] } } }));
    expect(justUnder.status).not.toBe(500);
  });

  test("nothing in the request can change the upstream URL, credential or auth headers", async () => {
    const r = await g.s.fetch("/v1/chat/completions", {
      method: "POST",
      headers: { "x-api-key": "sk-evil-0000000000", "x-goog-api-key": "evil" },
      body: JSON.stringify({
        model: "acme/openai-only",
        messages: msgs,
        base_url: "http://evil.invalid",
        api_key: "sk-evil",
        extensions: { alpha: { headers: { authorization: "Bearer evil" } } },
      }),
    });
    expect(r.status).toBe(200);
    const sent = g.mock.requests.at(-1)!;
    expect(sent.provider).toBe("alpha");
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.headers.authorization).toBe("Bearer sk-alpha-platform-0123456789");
    expect(JSON.stringify(sent.headers)).not.toContain("evil");
  });

  test("gateway and metadata are never forwarded upstream; extensions only to their provider", async () => {
    await post({
      model: "acme/openai-only",
      messages: msgs,
      gateway: { metadata: { trace_id: "t1" } },
      extensions: { alpha: { top_k: 5 }, beta: { top_k: 9 } },
    });
    const sent = g.mock.requests.at(-1)!.body as Record<string, unknown>;
    expect(sent.gateway).toBeUndefined();
    expect(sent.extensions).toBeUndefined();
    expect(sent.top_k).toBe(5);
  });

  test("an upstream that sends malformed SSE gives the client a clean error; the server keeps serving", async () => {
    g.mock.setScript({ provider: "alpha" }, { kind: "malformed" });
    const r = await g.s.fetch("/v1/chat/completions", {
      method: "POST",
      body: JSON.stringify({ model: "acme/openai-only", messages: msgs, stream: true }),
    });
    const text = await r.text();
    if (r.status === 200) expect(text).toMatch(/"error":\{/);
    else expect((JSON.parse(text) as Err).error.code).toBe("provider_error");
    g.mock.reset();
    expect((await post({ model: "acme/openai-only", messages: msgs })).status).toBe(200);
  });

  test("an upstream that hangs before the first byte is a 504 provider_timeout", async () => {
    g.mock.setScript({ provider: "alpha" }, { kind: "hang" });
    const r = await g.s.fetch("/v1/chat/completions", {
      method: "POST",
      body: JSON.stringify({ model: "acme/openai-only", messages: msgs, stream: true }),
    });
    expect(r.status).toBe(504);
    expect(((await r.json()) as Err).error.code).toBe("provider_timeout");
  });
});
