// Shared mode's stores for the saturation section: a fresh Postgres database (created here, dropped after)
// and a Redis key prefix of its own (its keys deleted after), so a run leaves nothing behind and never
// reads another run's state. BENCH_POSTGRES_URL / BENCH_REDIS_URL point elsewhere than the local defaults.
import { randomBytes } from "node:crypto";
import Redis from "ioredis";
import postgres from "postgres";

const PG_ADMIN = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const REDIS = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";

export interface SharedStores {
  /** DATABASE_URL, REDIS_URL and REDIS_PREFIX for the gateway. */
  env: Record<string, string>;
  /** Drops the database and deletes the prefix's keys (the gateway must have stopped). */
  cleanup(): Promise<void>;
}

const admin = () => postgres(PG_ADMIN, { max: 1, connect_timeout: 3, onnotice: () => {} });

async function dropKeys(prefix: string): Promise<number> {
  const redis = new Redis(REDIS, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let deleted = 0;
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
      if (keys.length) deleted += await redis.del(...keys);
      cursor = next;
    } while (cursor !== "0");
    return deleted;
  } finally {
    redis.disconnect();
  }
}

/** Creates the database and checks Redis answers; throws with the reason when either is unreachable. */
export async function createSharedStores(): Promise<SharedStores> {
  const id = randomBytes(5).toString("hex");
  const db = `switchyard_bench_${id}`;
  const prefix = `switchyard-bench-${id}:`;
  const redis = new Redis(REDIS, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 3_000 });
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    throw new Error(`Redis at ${REDIS} is not reachable (${String(err)})`);
  } finally {
    redis.disconnect();
  }
  const sql = admin();
  try {
    await sql.unsafe(`CREATE DATABASE "${db}"`);
  } catch (err) {
    throw new Error(`cannot create a database at ${PG_ADMIN.replace(/\/\/[^/@]*@/, "//***@")} (${String(err)})`);
  } finally {
    await sql.end({ timeout: 1 });
  }
  const url = new URL(PG_ADMIN);
  url.pathname = `/${db}`;
  return {
    env: { DATABASE_URL: url.toString(), REDIS_URL: REDIS, REDIS_PREFIX: prefix },
    async cleanup() {
      const s = admin();
      try {
        await s.unsafe(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
      } finally {
        await s.end({ timeout: 1 });
      }
      await dropKeys(prefix);
    },
  };
}
