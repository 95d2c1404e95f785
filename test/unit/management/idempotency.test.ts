import { describe, expect, test } from "bun:test";
import { ApiError } from "../../../src/http/errors";
import { MemoryIdempotencyLock } from "../../../src/management/idempotency/lock";
import { withIdempotency, type Reply } from "../../../src/management/idempotency/run";
import type { IdempotencyStore, StoredResponse } from "../../../src/management/idempotency/store";

function memoryStore(): IdempotencyStore & { size(): number } {
  const rows = new Map<string, StoredResponse>();
  return {
    async find(ws, route, key) {
      return rows.get(`${ws}|${route}|${key}`);
    },
    async save(ws, route, key, res) {
      rows.set(`${ws}|${route}|${key}`, res);
    },
    size: () => rows.size,
  };
}

const call = (key: string | null, body: unknown) => ({ workspaceId: "ws", route: "budgets.create", key, body });

describe("withIdempotency", () => {
  test("without a key the call just runs", async () => {
    const deps = { store: memoryStore(), lock: new MemoryIdempotencyLock() };
    let runs = 0;
    await withIdempotency(deps, call(null, {}), async () => ({ status: 201, body: { n: ++runs } }));
    await withIdempotency(deps, call(null, {}), async () => ({ status: 201, body: { n: ++runs } }));
    expect(runs).toBe(2);
    expect(deps.store.size()).toBe(0);
  });

  test("replay (key order irrelevant), conflict, and no storing of 5xx", async () => {
    const deps = { store: memoryStore(), lock: new MemoryIdempotencyLock() };
    let runs = 0;
    const run = async (): Promise<Reply> => ({ status: 201, body: { n: ++runs } });
    const a = await withIdempotency(deps, call("k1", { a: 1, b: [1, 2] }), run);
    const b = await withIdempotency(deps, call("k1", { b: [1, 2], a: 1 }), run);
    expect(b).toEqual(a);
    expect(runs).toBe(1);
    await expect(withIdempotency(deps, call("k1", { a: 2 }), run)).rejects.toMatchObject({ code: "idempotency_conflict" });
    const fail = () => Promise.reject(new ApiError("provider_validation_unavailable", "retry"));
    await expect(withIdempotency(deps, call("k2", {}), fail)).rejects.toMatchObject({ status: 502 });
    expect((await withIdempotency(deps, call("k2", {}), run)).status).toBe(201);
    const bad = () => Promise.reject(new ApiError("validation_error", "bad limit", { param: "limit" }));
    await expect(withIdempotency(deps, call("k3", {}), bad)).rejects.toMatchObject({ status: 422 });
    const replayed = await withIdempotency(deps, call("k3", {}), run);
    expect(replayed).toMatchObject({ status: 422, body: { error: { code: "validation_error", param: "limit" } } });
  });

  test("in progress: a second call with the key while the first runs is refused", async () => {
    const deps = { store: memoryStore(), lock: new MemoryIdempotencyLock() };
    let finish!: () => void;
    const first = withIdempotency(
      deps,
      call("k", {}),
      () => new Promise<Reply>((r) => (finish = () => r({ status: 201, body: { ok: 1 } }))),
    );
    await Bun.sleep(0);
    await expect(withIdempotency(deps, call("k", {}), async () => ({ status: 201 }))).rejects.toMatchObject({
      code: "idempotency_in_progress",
    });
    finish();
    expect((await first).status).toBe(201);
    expect(await withIdempotency(deps, call("k", {}), async () => ({ status: 500 }))).toEqual({ status: 201, body: { ok: 1 } });
  });

  test("key format: 1-255 of [A-Za-z0-9_-]", async () => {
    const deps = { store: memoryStore(), lock: new MemoryIdempotencyLock() };
    const ok = async (): Promise<Reply> => ({ status: 201 });
    expect((await withIdempotency(deps, call("a".repeat(255), {}), ok)).status).toBe(201);
    for (const bad of ["", "a".repeat(256), "a b", "a/b"]) {
      await expect(withIdempotency(deps, call(bad, {}), ok)).rejects.toMatchObject({
        code: "invalid_parameter",
        extra: { param: "Idempotency-Key" },
      });
    }
  });
});
