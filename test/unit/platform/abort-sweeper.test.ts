// The shared watcher of upstream requests: a passed deadline aborts with a TimeoutError, a departed
// client with an AbortError, a released request is left alone, and nothing ticks once nothing is watched.
import { expect, test } from "bun:test";
import { AbortSweeper, CLIENT_GRACE_MS } from "../../../src/platform/abort-sweeper";
import { eventually } from "../../support/spawn";

test("a request past its deadline is aborted with a TimeoutError (within one sweep)", async () => {
  const s = new AbortSweeper(5);
  const upstream = new AbortController();
  const t0 = performance.now();
  s.watch(new AbortController(), upstream, 30);
  expect(await eventually(() => upstream.signal.aborted, 2_000)).toBe(true);
  expect(performance.now() - t0).toBeGreaterThanOrEqual(29);
  expect((upstream.signal.reason as DOMException).name).toBe("TimeoutError");
  expect(s.size()).toBe(0);
});

test("a client that goes away aborts its upstream request with an AbortError", async () => {
  const s = new AbortSweeper(5);
  const client = new AbortController();
  const upstream = new AbortController();
  s.watch(client, upstream, 60_000);
  client.abort();
  expect(await eventually(() => upstream.signal.aborted, 2_000)).toBe(true);
  expect((upstream.signal.reason as DOMException).name).toBe("AbortError");
});

test("a client's signal is not read while the request is younger than the grace, and is read after it (Bun makes it on first read)", async () => {
  const s = new AbortSweeper(5);
  const client = new AbortController();
  let reads = 0;
  let readAt = 0;
  const t0 = performance.now();
  const side = {
    get signal() {
      if (reads++ === 0) readAt = performance.now() - t0;
      return client.signal;
    },
  };
  const upstream = new AbortController();
  s.watch(side, upstream, 60_000);
  client.abort();
  expect(await eventually(() => upstream.signal.aborted, 2_000)).toBe(true);
  expect(readAt).toBeGreaterThanOrEqual(CLIENT_GRACE_MS - 1);
  expect((upstream.signal.reason as DOMException).name).toBe("AbortError");
});

test("a released request is never aborted, and a deadline moved later holds", async () => {
  const s = new AbortSweeper(5);
  const released = new AbortController();
  const moved = new AbortController();
  const marker = new AbortController();
  s.release(s.watch(new AbortController(), released, 10));
  const w = s.watch(new AbortController(), moved, 10);
  w.until = performance.now() + 60_000;
  s.watch(new AbortController(), marker, 40);
  // Once the 40 ms marker has fired, sweeps have passed both earlier deadlines.
  expect(await eventually(() => marker.signal.aborted, 2_000)).toBe(true);
  expect(released.signal.aborted).toBe(false);
  expect(moved.signal.aborted).toBe(false);
  expect(s.size()).toBe(1);
  s.release(w);
  expect(s.size()).toBe(0);
});

test("the interval stops when the last watched request is released, so no sweep wakes an idle process", () => {
  const s = new AbortSweeper(5);
  const a = s.watch(new AbortController(), new AbortController(), 60_000);
  const b = s.watch(new AbortController(), new AbortController(), 60_000);
  expect(s.running()).toBe(true);
  s.release(a);
  // Another request is still in flight: the interval stays for it.
  expect(s.running()).toBe(true);
  s.release(b);
  expect(s.running()).toBe(false);
  // Releasing twice is harmless; watching again starts it again.
  s.release(b);
  s.release(s.watch(new AbortController(), new AbortController(), 60_000));
  expect(s.running()).toBe(false);
  s.watch(new AbortController(), new AbortController(), 60_000);
  expect(s.running()).toBe(true);
});

test("the interval stops at the sweep that aborts the last watched request", async () => {
  const s = new AbortSweeper(5);
  const upstream = new AbortController();
  s.watch(new AbortController(), upstream, 10);
  expect(s.running()).toBe(true);
  expect(await eventually(() => upstream.signal.aborted, 2_000)).toBe(true);
  expect(s.running()).toBe(false);
  expect(s.size()).toBe(0);
});

test("releasing watches in any order (first, middle, last, twice) leaves exactly the others watched, each aborted at its own deadline", async () => {
  const s = new AbortSweeper(5);
  const upstreams = Array.from({ length: 6 }, () => new AbortController());
  const watches = upstreams.map((u, i) => s.watch(new AbortController(), u, i % 2 === 0 ? 60_000 : 20));
  for (const i of [0, 3, 5, 3]) s.release(watches[i]!);
  expect(s.size()).toBe(3);
  // 1 kept its 20 ms deadline; 2 and 4 (60 s) stay watched; the released ones are never aborted.
  expect(await eventually(() => upstreams[1]!.signal.aborted, 2_000)).toBe(true);
  expect(upstreams.map((u) => u.signal.aborted)).toEqual([false, true, false, false, false, false]);
  expect(s.size()).toBe(2);
  for (const i of [2, 4]) s.release(watches[i]!);
  expect(s.size()).toBe(0);
  expect(s.running()).toBe(false);
});

test("an abort that synchronously releases other watches during a sweep leaves none behind and skips none", async () => {
  const s = new AbortSweeper(5);
  const others = Array.from({ length: 4 }, () => new AbortController());
  const otherWatches = others.map((u) => s.watch(new AbortController(), u, 60_000));
  const late = new AbortController();
  s.watch(new AbortController(), late, 30);
  // This one's abort releases every other watch at once (a caller cleaning up in its abort hook).
  s.watch(new AbortController(), { abort: () => otherWatches.forEach((w) => s.release(w)) }, 10);
  expect(await eventually(() => late.signal.aborted, 2_000)).toBe(true);
  expect(others.some((u) => u.signal.aborted)).toBe(false);
  expect(s.size()).toBe(0);
});
