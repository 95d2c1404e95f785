// The storage matrix: every storage test runs on SQLite and, when reachable, on Postgres (each run in
// its own schema). Under CI=true an unreachable Postgres is a failure, not a silent skip.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { randomBase62 } from "../../src/platform/ids";

export const PG_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

let pgReachable: Promise<boolean> | undefined;
export function postgresReachable(): Promise<boolean> {
  pgReachable ??= (async () => {
    const sql = postgres(PG_URL, { max: 1, connect_timeout: 3, onnotice: () => {} });
    try {
      await sql`SELECT 1`;
      return true;
    } catch {
      if (process.env.CI === "true") throw new Error(`CI: Postgres at ${PG_URL} is not reachable`);
      return false;
    } finally {
      await sql.end({ timeout: 1 });
    }
  })();
  return pgReachable;
}

export interface TestDb {
  kind: "sqlite" | "postgres";
  url: string;
  cleanup(): Promise<void>;
}

export function sqliteTestDb(): TestDb {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-test-"));
  return { kind: "sqlite", url: `sqlite:${join(dir, "db.sqlite")}`, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
}

export function postgresTestDb(): TestDb {
  const schema = `t_${randomBase62(12).toLowerCase()}`;
  const base = new URL(PG_URL);
  base.searchParams.set("schema", schema);
  return {
    kind: "postgres",
    url: base.toString(),
    cleanup: async () => {
      const sql = postgres(PG_URL, { max: 1, onnotice: () => {} });
      await sql.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await sql.end({ timeout: 1 });
    },
  };
}

/** The databases to run a storage test on: SQLite always, Postgres when reachable. */
export async function testDatabaseKinds(): Promise<("sqlite" | "postgres")[]> {
  return (await postgresReachable()) ? ["sqlite", "postgres"] : ["sqlite"];
}

export const makeTestDb = (kind: "sqlite" | "postgres"): TestDb => (kind === "sqlite" ? sqliteTestDb() : postgresTestDb());
