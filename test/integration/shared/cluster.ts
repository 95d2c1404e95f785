// Shared-mode test rig: N real server processes (src/main.ts) on one Postgres schema and one Redis
// prefix, with the mock upstream as every provider; plus a private redis-server that a test may stop
// and start (the machine's shared Redis serves other tests and must never be stopped).
import Redis from "ioredis";
import postgres from "postgres";
import { generateApiKey } from "../../../src/auth/key-format";
import { randomBase62 } from "../../../src/platform/ids";
import { PG_URL, postgresTestDb } from "../../support/databases";
import { gatewayConfig } from "../../support/gateway";
import { startMockUpstream, type MockUpstream } from "../../support/mock-upstream";
import { GENEROUS_LIMITS, writeTempConfig } from "../../support/server";
import { eventually, spawnServer, type ServerProcess } from "../../support/spawn";

export const SHARED_REDIS = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

export interface Cluster {
  nodes: ServerProcess[];
  adminKey: string;
  workspaceId: string;
  mock: MockUpstream;
  prefix: string;
  redisUrl: string;
  /** The Postgres schema both instances use (for writes that bypass the API, like the CLI's). */
  sql: postgres.Sql;
  schema: string;
  call(
    node: number,
    method: string,
    path: string,
    init?: { body?: unknown; key?: string | null; headers?: Record<string, string> },
  ): Promise<{ status: number; json: any; headers: Headers }>;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  redisUrl?: string;
  instances?: number;
  /** Merged over generous limits for every class. */
  limits?: Record<string, { per_minute: number; burst?: number }>;
  /** More of the config file (e.g. `credits`). */
  config?: Record<string, unknown>;
}

export async function startCluster(o: ClusterOptions = {}): Promise<Cluster> {
  const db = postgresTestDb();
  const schema = new URL(db.url).searchParams.get("schema")!;
  const prefix = `switchyard-test-${randomBase62(10)}:`;
  const redisUrl = o.redisUrl ?? `${SHARED_REDIS}/5`;
  const adminKey = generateApiKey();
  const mock = await startMockUpstream();
  const env = {
    DATABASE_URL: db.url,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    SWITCHYARD_ADMIN_KEY: adminKey,
    SWITCHYARD_MASTER_KEY: Buffer.alloc(32, 9).toString("base64"),
    SWITCHYARD_CONFIG: writeTempConfig(gatewayConfig(mock, { ...o.config, limits: { ...GENEROUS_LIMITS, ...o.limits } })),
  };
  // One after the other: the first migrates and bootstraps, the next finds everything in place.
  const nodes: ServerProcess[] = [];
  for (let i = 0; i < (o.instances ?? 2); i++) nodes.push(await spawnServer(env));
  const sql = postgres(PG_URL, { max: 2, onnotice: () => {} });
  const call: Cluster["call"] = async (node, method, path, init = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    const key = init.key === undefined ? adminKey : init.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    if (init.body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(nodes[node]!.url + path, {
      method,
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null, headers: res.headers };
  };
  const me = await call(0, "GET", "/v1/me");
  if (me.status !== 200) throw new Error(`admin key refused: ${JSON.stringify(me.json)}`);
  return {
    nodes,
    adminKey,
    workspaceId: me.json.workspace_id,
    mock,
    prefix,
    redisUrl,
    sql,
    schema,
    call,
    async stop() {
      await Promise.all(nodes.map((n) => n.stop()));
      await mock.stop();
      await sql.end({ timeout: 1 });
      await db.cleanup();
      await deleteKeys(redisUrl, prefix).catch(() => undefined);
    },
  };
}

/** Removes every key under a test prefix. */
export async function deleteKeys(redisUrl: string, prefix: string): Promise<number> {
  const r = new Redis(redisUrl, { lazyConnect: true, retryStrategy: () => null });
  await r.connect();
  try {
    const keys = await scanKeys(r, prefix);
    return keys.length ? await r.del(...keys) : 0;
  } finally {
    r.disconnect();
  }
}

export async function scanKeys(r: Redis, prefix: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = "0";
  do {
    const [next, keys] = await r.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    out.push(...keys);
    cursor = next;
  } while (cursor !== "0");
  return out;
}

/** A redis-server of our own on a free port, without persistence: stopping it loses everything. */
export interface PrivateRedis {
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function privateRedis(): Promise<PrivateRedis> {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  let proc: Bun.Subprocess | undefined;
  const url = `redis://127.0.0.1:${port}`;
  return {
    url,
    async start() {
      proc = Bun.spawn(
        ["redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no"],
        {
          stdout: "ignore",
          stderr: "ignore",
        },
      );
      const ok = await eventually(async () => {
        const r = new Redis(url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
        r.on("error", () => {});
        try {
          await r.connect();
          return (await r.ping()) === "PONG";
        } catch {
          return false;
        } finally {
          r.disconnect();
        }
      }, 5_000);
      if (!ok) throw new Error(`redis-server on port ${port} did not start`);
    },
    async stop() {
      if (!proc) return;
      proc.kill("SIGKILL");
      await proc.exited;
      proc = undefined;
    },
  };
}
