// Credit holds in shared mode (issue 52 item 3): the worst-case cost of calls in flight is held in
// Redis, so two instances admit against the same holds. First the store itself (two objects on one
// prefix stand for two instances), then two real server processes on one Postgres and one Redis.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisCreditHolds } from "../../../src/metering/redis-credit-holds";
import { randomBase62 } from "../../../src/platform/ids";
import { createLogger } from "../../../src/platform/logger";
import { RedisConnection } from "../../../src/platform/redis";
import { postgresReachable } from "../../support/databases";
import { eventually } from "../../support/spawn";
import { SHARED_REDIS, startCluster, type Cluster } from "./cluster";
import { startInstances, stopInstances } from "./redis-instances";

const logger = createLogger("error", () => {});
const prefix = `switchyard-test-${randomBase62(10)}:`;
const url = `${SHARED_REDIS}/6`;

describe("RedisCreditHolds", () => {
  let one: RedisConnection;
  let two: RedisConnection;
  let down: RedisConnection;
  beforeAll(async () => ({ one, two, down } = await startInstances(url, prefix, logger)));
  afterAll(() => stopInstances({ one, two, down }, url, prefix));

  test("a hold taken through one instance counts against the balance on the other; released, it frees the headroom", async () => {
    const a = new RedisCreditHolds(one, logger);
    const b = new RedisCreditHolds(two, logger);
    const ws = randomBase62(8);
    const held = await a.reserve(ws, 100, 500);
    expect(held).not.toBeNull();
    expect(await b.reserve(ws, 100, 1)).toBeNull();
    expect(await a.reserve(ws, 100, 1)).toBeNull();
    await a.release(held!);
    await a.release(held!); // twice: no effect
    const next = await b.reserve(ws, 100, 60);
    expect(next).not.toBeNull();
    // 40 µ$ of headroom left: one more is admitted, then the holds cover the balance.
    expect(await a.reserve(ws, 100, 60)).not.toBeNull();
    expect(await a.reserve(ws, 100, 1)).toBeNull();
  });

  test("a hold never released (an instance that died mid-call) stops counting after its TTL", async () => {
    const a = new RedisCreditHolds(one, logger, 300);
    const b = new RedisCreditHolds(two, logger, 300);
    const ws = randomBase62(8);
    expect(await a.reserve(ws, 100, 500)).not.toBeNull();
    expect(await b.reserve(ws, 100, 1)).toBeNull();
    expect(await eventually(async () => (await b.reserve(ws, 100, 1)) !== null, 3_000, 50)).toBe(true);
  });

  test("with Redis down, holds are taken per instance and still refuse once they cover the balance", async () => {
    const local = new RedisCreditHolds(down, logger);
    const ws = randomBase62(8);
    const held = await local.reserve(ws, 100, 500);
    expect(held).not.toBeNull();
    expect(await local.reserve(ws, 100, 1)).toBeNull();
    await local.release(held!);
    expect(await local.reserve(ws, 100, 1)).not.toBeNull();
  });
});

const reachable = await postgresReachable();

describe.skipIf(!reachable)("shared mode: credit holds across two instances", () => {
  let c: Cluster;
  beforeAll(async () => {
    c = await startCluster({ config: { credits: { enforce: true } } });
  }, 30_000);
  afterAll(async () => {
    await c?.stop();
  });

  test("20 concurrent calls split over two instances on a balance below one call's worst case: one is served, 19 get insufficient_credits", async () => {
    // 5 µ$, written as the CLI would: below one call's worst case (and its actual cost) of 21 µ$.
    await c.sql.unsafe(
      `INSERT INTO "${c.schema}".credit_ledger (id, workspace_id, amount_microdollars, reason, request_id, created_at) VALUES ($1, $2, 5, 'top_up', NULL, $3)`,
      [crypto.randomUUID(), c.workspaceId, Date.now()],
    );
    // A BYOK call spends no credit and reports the balance the instance holds in memory: wait until both see it.
    const byok = await c.call(0, "POST", `/v1/workspaces/${c.workspaceId}/byok-keys`, {
      body: { provider: "beta", api_key: "sk-byok-beta-0123456789" },
    });
    expect([201, 202]).toContain(byok.status);
    const balanceOn = async (node: number) => {
      const r = await c.call(node, "POST", "/v1/chat/completions", {
        body: { model: "acme/anthropic-only", messages: [{ role: "user", content: "hi" }] },
      });
      return r.headers.get("x-credits-balance-microdollars");
    };
    expect(await eventually(async () => (await balanceOn(0)) === "5" && (await balanceOn(1)) === "5", 8_000, 100)).toBe(true);
    c.mock.reset();
    c.mock.setScript({ route: "chat" }, { kind: "reply", usage: { input: 1, output: 10 }, delayMs: 400 });
    const body = { model: "acme/openai-only", messages: [{ role: "user", content: "abcd" }], max_tokens: 10 };
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => c.call(i % 2, "POST", "/v1/chat/completions", { body })));
    const codes: Record<string, number> = {};
    for (const a of answers) {
      const code = a.status === 200 ? "ok" : (a.json.error?.code as string);
      codes[code] = (codes[code] ?? 0) + 1;
    }
    expect(codes).toEqual({ ok: 1, insufficient_credits: 19 });
    expect(c.mock.requests.filter((r) => r.route === "chat")).toHaveLength(1);
  }, 20_000);
});
