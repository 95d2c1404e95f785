// Issue 56 item 4: /readyz names what is degraded. Not ready (503) only while draining or with the
// database unreachable; Redis down, a record dead-lettered or a backlog answer 200 with the parts named,
// and the reasons stay generic (the endpoint needs no key).
import { Database as BunSqlite } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { RECORD_BACKLOG } from "../../src/http/system-routes";
import { testDatabaseKinds } from "../support/databases";
import { startServer, type InProcessServer } from "../support/server";
import { makeRecord, waitFor } from "./metering/test-db";

const kinds = await testDatabaseKinds();

async function readyz(s: InProcessServer): Promise<{ status: number; json: Record<string, unknown> }> {
  const r = await s.fetch("/readyz", { key: null });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
}

/** A loopback port nothing listens on: a server's, closed again. */
function closedPort(): number {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = server.port;
  server.stop(true);
  return port;
}

for (const db of kinds) {
  describe(`/readyz on ${db}`, () => {
    test("ready with nothing to name; 503 naming `draining` while shutting down", async () => {
      const s = await startServer({ db });
      try {
        expect(await readyz(s)).toEqual({ status: 200, json: { status: "ready" } });
        s.deps.state.shuttingDown = true;
        expect(await readyz(s)).toEqual({
          status: 503,
          json: { status: "unavailable", failing: ["draining"], reasons: ["shutting down"] },
        });
      } finally {
        s.deps.state.shuttingDown = false;
        await s.stop();
      }
    });

    test("a dead-lettered record is named `dead_letter`, with the count, and the answer stays 200", async () => {
      const s = await startServer({ db });
      try {
        s.deps.records.enqueue(makeRecord({ workspaceId: s.workspaceId, latencyMs: NaN, chargeCredits: false }));
        await s.deps.records.drain(5000);
        const r = await readyz(s);
        expect(r.status).toBe(200);
        expect(r.json).toMatchObject({ status: "degraded", degraded: ["dead_letter"], records: { deadLettered: 1 } });
        expect(r.json.reasons).toEqual(["request records refused by the database; see dead_letter_records"]);
      } finally {
        await s.stop();
      }
    });
  });
}

describe("/readyz with the record writer behind", () => {
  test("records not being written and a backlog are named, and ready again once they are written", async () => {
    const s = await startServer({ db: "sqlite" });
    // A second connection holds SQLite's write lock: the writer's batch waits out its busy timeout and fails.
    const lock = new BunSqlite(s.deps.config.databaseUrl.slice("sqlite:".length));
    try {
      lock.run("BEGIN IMMEDIATE");
      for (let i = 0; i < RECORD_BACKLOG; i++) s.deps.records.enqueue(makeRecord({ workspaceId: s.workspaceId, chargeCredits: false }));
      expect(await waitFor(() => !s.deps.records.status().healthy, 5_000)).toBe(true);
      const r = await readyz(s);
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ status: "degraded", degraded: ["records", "records_backlog"], records: { healthy: false } });
      expect((r.json.records as { queued: number }).queued).toBe(RECORD_BACKLOG);
      expect(JSON.stringify(r.json)).not.toContain("locked");
      lock.run("ROLLBACK");
      expect((await s.deps.records.drain(15_000)).complete).toBe(true);
      expect(await readyz(s)).toEqual({ status: 200, json: { status: "ready" } });
    } finally {
      lock.close();
      await s.stop();
    }
  }, 30_000);
});

describe("/readyz in shared mode with Redis unreachable", () => {
  test("200, `redis` named degraded, no driver message in the answer", async () => {
    const s = await startServer({ env: { REDIS_URL: `redis://127.0.0.1:${closedPort()}` } });
    try {
      const r = await readyz(s);
      expect(r.status).toBe(200);
      expect(r.json.status).toBe("degraded");
      expect(r.json.degraded).toEqual(["redis"]);
      expect(r.json.reasons).toEqual(["redis unreachable; limits and budget counters are per instance"]);
      expect((r.json.redis as { up: boolean }).up).toBe(false);
      const text = JSON.stringify(r.json);
      expect(text).not.toContain("ECONNREFUSED");
      expect(text).not.toContain("lastError");
    } finally {
      await s.stop();
    }
  }, 20_000);
});
