// Shared admission end to end (redis-reservations.ts as shared mode wires it): a real server with
// credits enforced and a budget sends one admission script per call before the answer, holding both
// the credit and the budget, and ends its calls in batched settle scripts. Redis' MONITOR shows every
// command the server sends under the test's prefix.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Redis from "ioredis";
import { RESERVE, SETTLE } from "../../../src/metering/redis-budget-scripts";
import { postgresReachable } from "../../support/databases";
import { eventually } from "../../support/spawn";
import { scanKeys, startCluster, type Cluster } from "./cluster";

const reachable = await postgresReachable();
const sha1 = (s: string) => new Bun.CryptoHasher("sha1").update(s).digest("hex");

describe.skipIf(!reachable)("shared mode: one admission script per call", () => {
  let c: Cluster;
  beforeAll(async () => {
    c = await startCluster({ instances: 1, config: { credits: { enforce: true } } });
  }, 30_000);
  afterAll(async () => {
    await c?.stop();
  });

  test("a call with credits and a budget: one script takes both before the answer; the ends go in batches", async () => {
    await c.sql.unsafe(
      `INSERT INTO "${c.schema}".credit_ledger (id, workspace_id, amount_microdollars, reason, request_id, created_at) VALUES ($1, $2, 10000000, 'top_up', NULL, $3)`,
      [crypto.randomUUID(), c.workspaceId, Date.now()],
    );
    const budget = await c.call(0, "POST", `/v1/workspaces/${c.workspaceId}/budgets`, {
      body: { scope: "workspace", period: "daily", limit: 100 },
    });
    expect([201, 202]).toContain(budget.status);
    const chat = () =>
      c.call(0, "POST", "/v1/chat/completions", { body: { model: "acme/anthropic-only", messages: [{ role: "user", content: "hi" }] } });
    // Until the instance has read the top-up, calls get insufficient_credits; these also load the scripts.
    expect(await eventually(async () => (await chat()).headers.get("x-budget-daily-limit") === "100.00", 8_000, 100)).toBe(true);

    const r = new Redis(c.redisUrl);
    /** Holds and reservations still in Redis. */
    const live = async () => {
      let n = 0;
      for (const key of await scanKeys(r, `${c.prefix}`))
        if ((await r.type(key)) === "hash") n += Object.keys(await r.hgetall(key)).filter((f) => /^[hr]:/.test(f)).length;
      return n;
    };
    // monitor() opens a connection of its own in MONITOR mode.
    const base = new Redis(c.redisUrl, { lazyConnect: true });
    let monitor: Redis | undefined;
    const sent: string[][] = [];
    try {
      // The warm-up calls have ended in Redis too: what follows sees only the calls below.
      expect(await eventually(async () => (await live()) === 0, 3_000, 20)).toBe(true);
      // What the server sent (the commands its scripts run show up too, from "lua").
      monitor = await base.monitor();
      monitor.on("monitor", (_time: string, args: string[], source: string) => {
        if (source !== "lua" && args.some((a) => a.startsWith(c.prefix))) sent.push(args);
      });
      // MONITOR reports commands in the order Redis ran them, on its own connection: once it shows a
      // marker sent now, it has shown everything run before it.
      const seen = async (marker: string) => {
        await r.exists(`${c.prefix}${marker}`);
        return sent.some((a) => a[1] === `${c.prefix}${marker}`);
      };
      expect(await eventually(() => seen("start"), 3_000, 20)).toBe(true);
      sent.length = 0;
      const N = 6;
      const answers = await Promise.all(Array.from({ length: N }, chat));
      expect(answers.map((a) => a.status)).toEqual(Array(N).fill(200));
      // Every hold and reservation ended in Redis.
      expect(await eventually(async () => (await live()) === 0, 3_000, 20)).toBe(true);
      expect(await eventually(() => seen("end"), 3_000, 20)).toBe(true);
      // ioredis sends a script's first use on a connection as EVAL with its body, then EVALSHA.
      const scripts = (lua: string) => sent.filter((a) => /^eval/i.test(a[0]!) && (a[1] === sha1(lua) || a[1] === lua));
      const admissions = scripts(RESERVE);
      expect(admissions).toHaveLength(N);
      // Each took the budget reservation and the credit hold together: two keys, the credit-holds hash last.
      for (const a of admissions) {
        expect(a[2]).toBe("2");
        expect(a[3]).toStartWith(`${c.prefix}budget:${budget.json.budget_id}:`);
        expect(a[4]).toBe(`${c.prefix}credit-holds:${c.workspaceId}`);
      }
      const settles = scripts(SETTLE);
      expect(settles.length).toBeGreaterThanOrEqual(1);
      expect(settles.length).toBeLessThanOrEqual(N);
      // No other metering command: no HDEL of a hold, no read for the budget headers (the admission
      // script answered the spend), no other script on a credit or budget hash.
      expect(sent.filter((a) => ["hdel", "hget"].includes(a[0]!.toLowerCase()))).toEqual([]);
      const metering = sent.filter((a) => /^eval/i.test(a[0]!) && a.some((x) => x.includes("credit-holds:") || x.includes(":budget:")));
      expect(metering).toHaveLength(admissions.length + settles.length);
    } finally {
      monitor?.disconnect();
      base.disconnect();
      r.disconnect();
    }
  }, 30_000);
});
