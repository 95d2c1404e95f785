// The Responses store's write-behind queue on a real database (SQLite and Postgres): a batch that fails
// (the table out of reach) stays queued, is still found, and is written once the database is back; a
// delete reaches a queued row; the sweep deletes expired rows only; what is not kept and why.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { makeTestDb, testDatabaseKinds, type TestDb } from "../../support/databases";
import { openDatabase, type Database } from "../../../src/platform/db/database";
import { ResponseStore } from "../../../src/inference/responses/store/store";
import { storedResponsesRepo } from "../../../src/inference/responses/store/repo";
import { StoredResponseWriter } from "../../../src/inference/responses/store/writer";

const kinds = await testDatabaseKinds();
const response = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id, object: "response", status: "completed", output: [{ type: "message", role: "assistant", content: [] }], ...extra });

for (const kind of kinds) {
  describe(`Responses store writer on ${kind}`, () => {
    let testDb: TestDb;
    let db: Database;
    const raw = (text: string) => {
      const q = sql.raw(text);
      const orm = db.orm as unknown as { run?: (q: unknown) => Promise<unknown>; execute?: (q: unknown) => Promise<unknown> };
      return db.dialect === "sqlite" ? orm.run!(q) : orm.execute!(q);
    };
    const rows = () => db.orm.select().from(db.t.storedResponses);
    beforeAll(async () => {
      testDb = makeTestDb(kind);
      db = await openDatabase(testDb.url);
      await db.migrate();
    });
    afterAll(async () => {
      await db.close();
      await testDb.cleanup();
    });

    test("a failed batch stays queued and found, and is written when the database is back", async () => {
      const errors: unknown[] = [];
      const store = new ResponseStore(db, {
        ttlMs: 60_000,
        maxBytes: 1 << 20,
        writer: { initialBackoffMs: 5, maxBackoffMs: 20, onError: (e) => errors.push(e) },
      });
      await raw(`ALTER TABLE stored_responses RENAME TO stored_responses_away`);
      expect(store.keep("ws_1", [{ role: "user", content: "hi" }], response("resp_outage"), Date.now())).toEqual({ kept: true });
      await store.flush();
      expect(errors.length).toBeGreaterThan(0);
      expect(store.queued()).toBe(1);
      expect((await store.find("ws_1", "resp_outage", Date.now()))?.input).toEqual([{ role: "user", content: "hi" }]);
      // What is not queued cannot be read meanwhile: a 503 to retry, not a 500.
      await expect(store.find("ws_1", "resp_elsewhere", Date.now())).rejects.toMatchObject({ code: "service_unavailable", status: 503 });
      await raw(`ALTER TABLE stored_responses_away RENAME TO stored_responses`);
      expect(await store.drain(2_000)).toBe(true);
      expect((await rows()).map((r) => [r.workspaceId, r.id])).toContainEqual(["ws_1", "resp_outage"]);
      // Found from the database now, by its workspace only.
      expect((await store.find("ws_1", "resp_outage", Date.now()))?.response.id).toBe("resp_outage");
      expect(await store.find("ws_2", "resp_outage", Date.now())).toBeNull();
    });

    test("a delete reaches a row still queued; a second delete finds nothing", async () => {
      const store = new ResponseStore(db, { ttlMs: 60_000, maxBytes: 1 << 20 });
      store.keep("ws_1", [], response("resp_deleted"), Date.now());
      expect(await store.delete("ws_1", "resp_deleted", Date.now())).toBe(true);
      expect(await store.find("ws_1", "resp_deleted", Date.now())).toBeNull();
      await store.flush();
      expect((await rows()).some((r) => r.id === "resp_deleted")).toBe(false);
      expect(await store.delete("ws_1", "resp_deleted", Date.now())).toBe(false);
    });

    test("a delete while the row's batch is being written is not undone by that batch's commit", async () => {
      // The real table; the batch's transaction only starts once the delete has run (as on a pooled Postgres,
      // where the delete's connection may commit first).
      const repo = storedResponsesRepo(db);
      let open!: () => void;
      const gate = new Promise<void>((r) => (open = r));
      const writer = new StoredResponseWriter({ ...repo, insert: (batch) => gate.then(() => repo.insert(batch)) });
      const now = Date.now();
      writer.enqueue({
        workspaceId: "ws_1",
        id: "resp_in_flight",
        input: "[]",
        response: response("resp_in_flight"),
        bytes: 10,
        createdAt: now,
        expiresAt: now + 60_000,
      });
      const flushing = writer.flush();
      expect(writer.forget("ws_1", "resp_in_flight")).toBe(true);
      expect(await repo.remove("ws_1", "resp_in_flight", now)).toBe(false);
      open();
      await flushing;
      expect((await rows()).some((r) => r.id === "resp_in_flight")).toBe(false);
      expect(writer.size()).toBe(0);
    });

    test("the sweep deletes expired rows, in chunks, and leaves live ones", async () => {
      const store = new ResponseStore(db, { ttlMs: 1_000, maxBytes: 1 << 20 });
      const t0 = Date.now();
      for (let i = 0; i < 3; i++) store.keep("ws_s", [], response(`resp_old_${i}`), t0 - 10_000);
      store.keep("ws_s", [], response("resp_live"), t0);
      await store.flush();
      expect(await store.sweep(t0)).toBe(3);
      const left = (await rows()).filter((r) => r.workspaceId === "ws_s").map((r) => r.id);
      expect(left).toEqual(["resp_live"]);
      expect(await store.sweep(t0)).toBe(0);
    });

    test("not kept: over maxBytes, a failed response, a body that is not a response, a queue over its byte bound", async () => {
      const store = new ResponseStore(db, { ttlMs: 60_000, maxBytes: 300, writer: { maxQueuedBytes: 300, flushIntervalMs: 60_000 } });
      expect(store.keep("ws_1", [{ content: "x".repeat(300) }], response("resp_big"), Date.now())).toEqual({
        kept: false,
        reason: "too_large",
      });
      expect(store.keep("ws_1", [], response("resp_failed", { status: "failed" }), Date.now())).toEqual({
        kept: false,
        reason: "not_a_response",
      });
      expect(store.keep("ws_1", [], "not json", Date.now())).toEqual({ kept: false, reason: "not_a_response" });
      expect(store.keep("ws_1", [], response("resp_a"), Date.now())).toEqual({ kept: true });
      expect(store.keep("ws_1", [], response("resp_b"), Date.now())).toEqual({ kept: true });
      expect(store.keep("ws_1", [], response("resp_c"), Date.now())).toEqual({ kept: false, reason: "queue_full" });
      await store.flush();
      expect(store.keep("ws_1", [], response("resp_c"), Date.now())).toEqual({ kept: true });
      await store.flush();
    });
  });
}
