// Sticky routing through the HTTP gateway (issue 54 item 6): one model on two routes, a cheaper one
// without a cache price (alpha) and one that reads cache for a tenth of its input price (delta). Once a
// conversation is served by the cache route, its next turns stay there under `cost` (which alone would
// pick alpha) and say `sticky: true`; a constraint that excludes the cache route wins; after the TTL
// (a simulated clock on the store) the conversation no longer sticks.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { MemoryStickyStore } from "../../../src/inference/sticky/store";
import { FakeClock } from "../../support/fake-clock";
import { startGateway, type TestGateway } from "../../support/gateway";

const TTL_S = 300;
const route = (provider: string, id: string, input: number, extra: Record<string, unknown> = {}) => ({
  provider,
  provider_model_id: id,
  input_price: input,
  output_price: 2,
  context_window: 128000,
  max_output_tokens: 4096,
  ...extra,
});
const MODELS = {
  "acme/cached": { routes: [route("alpha", "alpha-plain", 1), route("delta", "delta-cached", 1.5, { cache_read_price: 0.15 })] },
  "acme/uncached": { routes: [route("alpha", "alpha-u", 1), route("delta", "delta-u", 1.5)] },
};

type Meta = { provider: string; sticky: boolean };

describe("sticky routing", () => {
  let g: TestGateway;
  let clock: FakeClock;
  beforeAll(async () => {
    g = await startGateway({ config: { models: MODELS, routing: { sticky_ttl_s: TTL_S } } });
    expect(g.s.deps.config.routing.stickyTtlMs).toBe(TTL_S * 1000);
  });
  afterAll(() => g.stop());
  beforeEach(() => {
    g.mock.reset();
    // The store on a simulated clock, so the TTL passes without waiting for it.
    clock = new FakeClock();
    g.s.deps.inference.sticky = new MemoryStickyStore({ ttlMs: TTL_S * 1000, now: () => clock.now() });
  });

  async function chat(body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Meta> {
    const r = await g.s.fetch("/v1/chat/completions", {
      method: "POST",
      headers,
      body: JSON.stringify({
        model: "acme/cached",
        messages: [
          { role: "system", content: "You are terse." },
          { role: "user", content: "hi" },
        ],
        ...body,
      }),
    });
    const json = (await r.json()) as { routing_metadata: Meta; error?: unknown };
    expect({ status: r.status, error: json.error }).toEqual({ status: 200, error: undefined });
    return json.routing_metadata;
  }
  const cost = (routing: Record<string, unknown> = {}) => ({ gateway: { routing: { optimize: "cost", ...routing } } });
  const onlyDelta = cost({ providers: ["delta"] });

  test("without a sticky session, cost picks the cheaper route", async () => {
    expect(await chat(cost())).toEqual(expect.objectContaining({ provider: "alpha", sticky: false }));
  });

  test("a conversation served by the cache route stays there (hash of its first system and user messages)", async () => {
    expect(await chat(onlyDelta)).toMatchObject({ provider: "delta", sticky: false });
    const next = await chat({
      ...cost(),
      messages: [
        { role: "system", content: "You are terse." },
        { role: "user", content: "hi" },
        { role: "assistant", content: "hello" },
        { role: "user", content: "and now?" },
      ],
    });
    expect(next).toMatchObject({ provider: "delta", sticky: true });
    // Another conversation (another first message) is not stuck.
    expect(await chat({ ...cost(), messages: [{ role: "user", content: "something else" }] })).toMatchObject({ provider: "alpha" });
  });

  test("X-Session-Id names the conversation, for JSON and streams alike", async () => {
    const h = { "x-session-id": "conv-1" };
    expect(await chat({ ...onlyDelta, messages: [{ role: "user", content: "a" }] }, h)).toMatchObject({ provider: "delta" });
    expect(await chat({ ...cost(), messages: [{ role: "user", content: "b" }] }, h)).toMatchObject({ provider: "delta", sticky: true });
    const r = await g.s.fetch("/v1/chat/completions", {
      method: "POST",
      headers: h,
      body: JSON.stringify({ model: "acme/cached", stream: true, messages: [{ role: "user", content: "c" }], ...cost() }),
    });
    const text = await r.text();
    expect(text).toMatch(/"routing_metadata":\{"provider":"delta"/);
    expect(text).toContain('"sticky":true');
  });

  test("a constraint that excludes the cache route wins, and the session stays stuck for later turns", async () => {
    await chat(onlyDelta);
    expect(await chat(cost({ exclude_providers: ["delta"] }))).toMatchObject({ provider: "alpha", sticky: false });
    // alpha has no cache price: the conversation is not moved there.
    expect(await chat(cost())).toMatchObject({ provider: "delta", sticky: true });
  });

  test("after the TTL the conversation no longer sticks; each turn served restarts it", async () => {
    await chat(onlyDelta);
    clock.advance(TTL_S * 1000 - 1_000);
    expect(await chat(cost())).toMatchObject({ provider: "delta", sticky: true });
    clock.advance(TTL_S * 1000 - 1_000);
    expect(await chat(cost())).toMatchObject({ provider: "delta", sticky: true });
    clock.advance(TTL_S * 1000);
    expect(await chat(cost())).toMatchObject({ provider: "alpha", sticky: false });
  });

  test("the workspace scopes the session: another workspace's same conversation is not stuck", async () => {
    await chat(onlyDelta, { "x-session-id": "shared-name" });
    const other = await g.s.deps.repos.workspaces.create("Other");
    const { key } = await g.s.deps.repos.apiKeys.create({ workspaceId: other.id, name: "k", scopes: ["usage:read"] });
    const r = await g.s.fetch("/v1/chat/completions", {
      method: "POST",
      key,
      headers: { "x-session-id": "shared-name" },
      body: JSON.stringify({ model: "acme/cached", messages: [{ role: "user", content: "hi" }], ...cost() }),
    });
    expect(((await r.json()) as { routing_metadata: Meta }).routing_metadata).toMatchObject({ provider: "alpha", sticky: false });
  });

  test("nothing is looked up or remembered for a model none of whose routes caches cheaply", async () => {
    const store = g.s.deps.inference.sticky as MemoryStickyStore;
    await chat({ ...onlyDelta, model: "acme/uncached" });
    expect(store.size).toBe(0);
    expect(await chat({ ...cost(), model: "acme/uncached" })).toMatchObject({ provider: "alpha", sticky: false });
  });
});

describe("routing.sticky_ttl_s 0", () => {
  test("turns sticky routing off", async () => {
    const g = await startGateway({ config: { routing: { sticky_ttl_s: 0 } } });
    try {
      expect(g.s.deps.inference.sticky).toBeUndefined();
    } finally {
      await g.stop();
    }
  });
});
