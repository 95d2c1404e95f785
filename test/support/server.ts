// Real servers for HTTP tests: in-process (createDeps + createApp, listening on port 0) or as a child
// process running src/main.ts (or the compiled binary) exactly as a user would.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { loadConfig } from "../../src/config/load";
import { createDeps, type Deps } from "../../src/deps";
import { createApp } from "../../src/app";
import { bootstrap } from "../../src/cli/bootstrap";
import { generateApiKey } from "../../src/auth/key-format";
import { createLogger } from "../../src/platform/logger";
import { makeTestDb, type TestDb } from "./databases";
import { randomBase62 } from "../../src/platform/ids";
import Redis from "ioredis";

const big = { per_minute: 1_000_000 };
export const GENEROUS_LIMITS = { inference: big, discovery: big, management_reads: big, management_writes: big, key_creation: big };

export interface InProcessServer {
  url: string;
  adminKey: string;
  workspaceId: string;
  deps: Deps;
  logs: string[];
  fetch(path: string, init?: RequestInit & { key?: string | null }): Promise<Response>;
  stop(): Promise<void>;
}

export interface StartOptions {
  db?: "sqlite" | "postgres";
  env?: Record<string, string>;
  /** The config file's content (written to a temp file and passed as SWITCHYARD_CONFIG). */
  configFile?: unknown;
  /** The logger's level (default debug, lines kept in `logs`); probes use the server's warn to measure what it runs. */
  logLevel?: "debug" | "info" | "warn" | "error";
}

export function writeTempConfig(content: unknown): string {
  const path = join(tmpdir(), `switchyard-config-${randomBase62(8)}.json`);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

export async function startServer(opts: StartOptions = {}): Promise<InProcessServer> {
  const testDb: TestDb = makeTestDb(opts.db ?? "sqlite");
  const adminKey = generateApiKey();
  const env: Record<string, string> = {
    PORT: "0",
    HOST: "127.0.0.1",
    DATABASE_URL: testDb.url,
    SWITCHYARD_ADMIN_KEY: adminKey,
    SWITCHYARD_MASTER_KEY: Buffer.alloc(32, 7).toString("base64"),
    SWITCHYARD_LOG_LEVEL: "debug",
    // `SWITCHYARD_TUNING=off npm test` runs the suite on plain Bun; a test that needs a tuning piece sets it in opts.env.
    ...(process.env.SWITCHYARD_TUNING ? { SWITCHYARD_TUNING: process.env.SWITCHYARD_TUNING } : {}),
    ...opts.env,
  };
  // Tests send bursts no client would; rate limits are generous unless a test sets its own.
  const file = (opts.configFile ?? {}) as Record<string, unknown>;
  env.SWITCHYARD_CONFIG = writeTempConfig(
    typeof opts.configFile === "string" || file.limits ? opts.configFile : { ...file, limits: GENEROUS_LIMITS },
  );
  // Shared-mode tests get their own Redis key prefix, removed on stop, so runs never see each other's keys.
  if (env.REDIS_URL && !env.REDIS_PREFIX) env.REDIS_PREFIX = `switchyard-test-${randomBase62(10)}:`;
  const logs: string[] = [];
  const config = loadConfig(env);
  const deps = await createDeps(
    config,
    createLogger(opts.logLevel ?? "debug", (l) => logs.push(l)),
  );
  const boot = await bootstrap(deps, { migrate: true });
  await deps.start();
  const app = createApp(deps);
  app.listen({ port: 0, hostname: "127.0.0.1" });
  const url = `http://127.0.0.1:${app.server!.port}`;
  return {
    url,
    adminKey,
    workspaceId: boot.workspaceId,
    deps,
    logs,
    fetch(path, init = {}) {
      const headers = new Headers(init.headers);
      const key = init.key === undefined ? adminKey : init.key;
      if (key !== null && !headers.has("authorization")) headers.set("authorization", `Bearer ${key}`);
      if (init.body !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json");
      return fetch(url + path, { ...init, headers });
    },
    async stop() {
      await app.server?.stop(true);
      await deps.close();
      await testDb.cleanup();
      if (env.REDIS_URL) await deleteRedisPrefix(env.REDIS_URL, env.REDIS_PREFIX!);
    },
  };
}

async function deleteRedisPrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== "0");
  } catch {
    // Redis gone: nothing to clean.
  } finally {
    redis.disconnect();
  }
}
