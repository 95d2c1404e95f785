// Sticky routing across a fleet: two gateway processes on one Redis. A conversation whose first turn
// instance 0 served on the cache route keeps that route for its next turn on instance 1, which never
// served it (it reads the stickiness from Redis), while another conversation goes where `cost` sends it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Redis from "ioredis";
import { eventually } from "../../support/spawn";
import { scanKeys, startCluster, type Cluster } from "./cluster";

const route = (provider: string, id: string, input: number, extra: Record<string, unknown> = {}) => ({
  provider,
  provider_model_id: id,
  input_price: input,
  output_price: 2,
  context_window: 128000,
  max_output_tokens: 4096,
  ...extra,
});
const models = {
  "acme/cached": { routes: [route("alpha", "alpha-plain", 1), route("delta", "delta-cached", 1.5, { cache_read_price: 0.15 })] },
};

describe("sticky routing in shared mode", () => {
  let c: Cluster;
  let raw: Redis;
  beforeAll(async () => {
    c = await startCluster({ config: { models } });
    raw = new Redis(c.redisUrl, { lazyConnect: true, retryStrategy: () => null });
    await raw.connect();
  });
  afterAll(async () => {
    raw?.disconnect();
    await c?.stop();
  });

  const turn = (node: number, session: string, routing: Record<string, unknown>) =>
    c.call(node, "POST", "/v1/chat/completions", {
      headers: { "x-session-id": session },
      body: { model: "acme/cached", messages: [{ role: "user", content: "hi" }], gateway: { routing: { optimize: "cost", ...routing } } },
    });

  test("a turn on another instance stays on the conversation's cache route", async () => {
    const first = await turn(0, "conv-fleet", { providers: ["delta"] });
    expect(first.status).toBe(200);
    expect(first.json.routing_metadata).toMatchObject({ provider: "delta", sticky: false });
    // The write is fire-and-forget: wait until Redis has it.
    expect(await eventually(async () => (await scanKeys(raw, `${c.prefix}sticky:`)).length > 0)).toBe(true);
    const next = await turn(1, "conv-fleet", {});
    expect(next.json.routing_metadata).toMatchObject({ provider: "delta", sticky: true });
    const other = await turn(1, "conv-other", {});
    expect(other.json.routing_metadata).toMatchObject({ provider: "alpha", sticky: false });
  });
});
