// Issue 53 part 3 end to end: an Anthropic client (the official SDK, which sends `anthropic-version` and
// `x-api-key`) discovers models in Anthropic's list shape, and Anthropic's dated and undated model IDs
// resolve for /v1/models/{id} and for inference. The built-in catalog's Anthropic provider is the mock.
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startMockUpstream, type MockUpstream } from "../support/mock-upstream";
import { startServer, type InProcessServer } from "../support/server";

let mock: MockUpstream;
let s: InProcessServer;
let anthropic: Anthropic;
beforeAll(async () => {
  mock = await startMockUpstream();
  const providers = {
    anthropic: { adapter: "anthropic", base_url: mock.baseUrl("anthropic", "anthropic"), api_key: "sk-ant-platform-0123456789" },
  };
  s = await startServer({ configFile: { providers } });
  anthropic = new Anthropic({ baseURL: s.url, apiKey: s.adminKey, maxRetries: 0 });
});
afterAll(async () => {
  await s.stop();
  await mock.stop();
});

const ANTHROPIC_HEADERS = { "anthropic-version": "2023-06-01" };

describe("GET /v1/models with anthropic-version answers in Anthropic's list shape", () => {
  test("the official SDK pages through every model (limit, after_id), newest first, Anthropic models under their own IDs", async () => {
    const ids: string[] = [];
    for await (const m of anthropic.models.list({ limit: 7 })) ids.push(m.id);
    const whole = (await (await s.fetch("/v1/models?limit=1000", { headers: ANTHROPIC_HEADERS })).json()) as {
      data: { id: string; created_at: string; type: string }[];
      has_more: boolean;
      first_id: string;
      last_id: string;
    };
    expect(Object.keys(whole).sort()).toEqual(["data", "first_id", "has_more", "last_id"]);
    expect(ids).toEqual(whole.data.map((m) => m.id));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain("claude-sonnet-4-5");
    expect(ids).toContain("openai/gpt-5");
    expect(whole).toMatchObject({ has_more: false, first_id: ids[0], last_id: ids.at(-1) });
    const created = whole.data.map((m) => Date.parse(m.created_at));
    expect(created).toEqual([...created].sort((a, b) => b - a));
  });

  test("the first page is 20 models with has_more; before_id pages back", async () => {
    const first = await anthropic.models.list();
    expect(first.data).toHaveLength(20);
    expect(first.has_more).toBe(true);
    const second = await anthropic.models.list({ after_id: first.last_id! });
    const back = await anthropic.models.list({ before_id: second.first_id!, limit: 20 });
    expect(back.data.map((m) => m.id)).toEqual(first.data.map((m) => m.id));
  });

  test("without anthropic-version the OpenAI list shape is unchanged, and no model is created 0", async () => {
    const res = await s.fetch("/v1/models");
    const body = (await res.json()) as { object: string; data: { id: string; object: string; created: number }[] };
    expect(body.object).toBe("list");
    expect(body.data.find((m) => m.id === "anthropic/claude-sonnet-4-5")).toMatchObject({ object: "model", created: 1759104000 });
    for (const m of body.data) expect(m.created).toBeGreaterThan(0);
  });
});

describe("Anthropic's dated and undated model IDs resolve", () => {
  test("models.retrieve answers Anthropic's model shape for the dated, undated and canonical IDs", async () => {
    for (const name of ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5", "anthropic/claude-sonnet-4-5"]) {
      const m = await anthropic.models.retrieve(name);
      expect(m).toMatchObject({ type: "model", id: "claude-sonnet-4-5", created_at: "2025-09-29T00:00:00Z", lifecycle: "active" });
    }
  });

  test("a Messages call naming a dated ID goes to the model's Anthropic route under its provider model ID", async () => {
    for (const [name, upstream] of [
      ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5"],
      ["claude-haiku-4-5-20251001", "claude-haiku-4-5"],
      ["claude-opus-4-8-20261105", "claude-opus-4-8"],
    ] as const) {
      mock.reset();
      const m = await anthropic.messages.create({ model: name, max_tokens: 32, messages: [{ role: "user", content: "hi" }] });
      expect(m.content[0]).toMatchObject({ type: "text" });
      expect((mock.requests.at(-1)!.body as { model: string }).model).toBe(upstream);
    }
  });
});

describe("an Anthropic client's errors on /v1/models come in Anthropic's shape", () => {
  test("an unknown model is the SDK's NotFoundError (not_found_error)", async () => {
    const err = await anthropic.models.retrieve("claude-nonexistent-9").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.NotFoundError);
    expect((err as InstanceType<typeof Anthropic.NotFoundError>).error).toMatchObject({
      type: "error",
      error: { type: "not_found_error" },
    });
  });

  test("a bad limit or cursor is the SDK's BadRequestError (invalid_request_error) naming the parameter", async () => {
    for (const q of ["limit=0", "limit=abc", "after_id=no-such-model", "after_id=claude-sonnet-4-5&before_id=claude-haiku-4-5"]) {
      const res = await s.fetch(`/v1/models?${q}`, { headers: ANTHROPIC_HEADERS });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { type: string; error: { type: string; message: string } };
      expect(body).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
      expect(body.error.message).toMatch(/limit|after_id|before_id/);
    }
    const err = await anthropic.models.list({ limit: 5000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
  });

  test("a missing key is the SDK's AuthenticationError; x-api-key is accepted", async () => {
    const res = await s.fetch("/v1/models", { key: null, headers: ANTHROPIC_HEADERS });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe("authentication_error");
    const ok = await s.fetch("/v1/models", { key: null, headers: { ...ANTHROPIC_HEADERS, "x-api-key": s.adminKey } });
    expect(ok.status).toBe(200);
    const openai = await s.fetch("/v1/models", { key: null, headers: { "x-api-key": s.adminKey } });
    expect(openai.status).toBe(401);
  });
});

describe("an Anthropic client's x-api-key on /v1/models is its key for the rate limit too", () => {
  test("calls with x-api-key and anthropic-version take from the key's inference bucket, not the client address's", async () => {
    const limited = await startServer({ configFile: { limits: { inference: { per_minute: 3 } } }, logLevel: "warn" });
    try {
      for (let i = 0; i < 3; i++) expect((await limited.fetch("/v1/models")).status).toBe(200);
      const res = await limited.fetch("/v1/models", { key: null, headers: { ...ANTHROPIC_HEADERS, "x-api-key": limited.adminKey } });
      expect(res.status).toBe(429);
      expect(((await res.json()) as { error: { type: string } }).error.type).toBe("rate_limit_error");
    } finally {
      await limited.stop();
    }
  });
});
