import { describe, expect, test } from "bun:test";
import { HealthStore } from "../../../src/routing/health";
import { route } from "./fixtures";

const KEY = "alpha/alpha-model";
const T0 = 1_000_000;

function failTimes(store: HealthStore, n: number, now: number, retryAfterMs?: number): void {
  for (let i = 0; i < n; i++) store.recordFailure(KEY, { retryAfterMs }, now);
}

describe("HealthStore circuit breaker", () => {
  test("circuit opens after the configured number of consecutive failures", () => {
    const store = new HealthStore();
    failTimes(store, 2, T0);
    expect(store.state(KEY, T0)).toBe("closed");
    store.recordFailure(KEY, {}, T0);
    expect(store.state(KEY, T0)).toBe("open");
    expect(store.tryAcquireProbe(KEY, T0)).toBe(false);
    expect(store.canAttempt(KEY, T0)).toBe(false);
  });

  test("a success resets the consecutive-failure streak", () => {
    const store = new HealthStore({ failureThreshold: 2 });
    store.recordFailure(KEY, {}, T0);
    store.recordSuccess(KEY, { latencyMs: 100 }, T0);
    store.recordFailure(KEY, {}, T0);
    expect(store.state(KEY, T0)).toBe("closed");
    store.recordFailure(KEY, {}, T0);
    expect(store.state(KEY, T0)).toBe("open");
  });

  test("default cool-down is 30 s, then the circuit is half-open", () => {
    const store = new HealthStore();
    failTimes(store, 3, T0);
    expect(store.state(KEY, T0 + 29_999)).toBe("open");
    expect(store.state(KEY, T0 + 30_000)).toBe("half_open");
  });

  test("half-open allows exactly one probe at a time", () => {
    const store = new HealthStore();
    failTimes(store, 3, T0);
    const later = T0 + 30_000;
    expect(store.canAttempt(KEY, later)).toBe(true);
    expect(store.tryAcquireProbe(KEY, later)).toBe(true);
    expect(store.tryAcquireProbe(KEY, later)).toBe(false);
    expect(store.canAttempt(KEY, later)).toBe(false);
    expect(store.view(KEY, later).probeInFlight).toBe(true);
  });

  test("a successful probe closes the circuit", () => {
    const store = new HealthStore();
    failTimes(store, 3, T0);
    const later = T0 + 30_000;
    expect(store.tryAcquireProbe(KEY, later)).toBe(true);
    store.recordSuccess(KEY, { latencyMs: 120 }, later);
    expect(store.state(KEY, later)).toBe("closed");
    expect(store.tryAcquireProbe(KEY, later)).toBe(true);
    expect(store.tryAcquireProbe(KEY, later)).toBe(true); // closed: no single-probe gate
  });

  test("a failed probe reopens the circuit for another cool-down", () => {
    const store = new HealthStore();
    failTimes(store, 3, T0);
    const later = T0 + 30_000;
    expect(store.tryAcquireProbe(KEY, later)).toBe(true);
    store.recordFailure(KEY, {}, later);
    expect(store.state(KEY, later + 29_999)).toBe("open");
    expect(store.state(KEY, later + 30_000)).toBe("half_open");
  });

  test("a released probe frees the slot without changing the state", () => {
    const store = new HealthStore();
    failTimes(store, 3, T0);
    const later = T0 + 30_000;
    expect(store.tryAcquireProbe(KEY, later)).toBe(true);
    store.releaseProbe(KEY);
    expect(store.state(KEY, later)).toBe("half_open");
    expect(store.tryAcquireProbe(KEY, later)).toBe(true);
  });

  test("a probe that never reports frees its slot when its lease ends", () => {
    const store = new HealthStore({ probeLeaseMs: 5_000 });
    failTimes(store, 3, T0);
    const later = T0 + 30_000;
    expect(store.tryAcquireProbe(KEY, later)).toBe(true);
    expect(store.tryAcquireProbe(KEY, later + 4_999)).toBe(false);
    expect(store.tryAcquireProbe(KEY, later + 5_000)).toBe(true);
  });

  test("Retry-After sets the cool-down, capped by maxCooldownMs", () => {
    const store = new HealthStore({ maxCooldownMs: 120_000 });
    failTimes(store, 3, T0, 90_000);
    expect(store.state(KEY, T0 + 89_999)).toBe("open");
    expect(store.state(KEY, T0 + 90_000)).toBe("half_open");

    const short = new HealthStore();
    for (let i = 0; i < 3; i++) short.recordFailure(KEY, { retryAfterMs: 2_000 }, T0);
    expect(short.state(KEY, T0 + 1_999)).toBe("open");
    expect(short.state(KEY, T0 + 2_000)).toBe("half_open");

    const capped = new HealthStore({ maxCooldownMs: 120_000 });
    for (let i = 0; i < 3; i++) capped.recordFailure(KEY, { retryAfterMs: 86_400_000 }, T0);
    expect(capped.state(KEY, T0 + 120_000)).toBe("half_open");
  });

  test("failures while open never bring the reopening earlier", () => {
    const store = new HealthStore();
    failTimes(store, 3, T0, 60_000);
    store.recordFailure(KEY, {}, T0 + 1_000); // an in-flight request failing late, default 30 s
    expect(store.state(KEY, T0 + 59_999)).toBe("open");
  });
});

describe("HealthStore estimates and view", () => {
  const prior = { ttftMs: 700, tps: 40 };

  test("before any measurement the estimates are the route's priors", () => {
    const store = new HealthStore();
    const e = store.estimateRoute(route({ provider: "alpha", input: 1, output: 1, ttft: 700, tps: 40 }), T0);
    expect(e.ttftP50Ms).toBeCloseTo(700, 6);
    expect(e.tpsP50).toBeCloseTo(40, 6);
    expect(e.successRate).toBe(1);
    expect([e.ttftSamples, e.tpsSamples, e.outcomeSamples]).toEqual([0, 0, 0]);
  });

  test("a success without TTFT/TPS moves only the success rate's samples", () => {
    const store = new HealthStore();
    store.recordSuccess(KEY, { latencyMs: 50 }, T0);
    const e = store.estimate(KEY, prior, T0);
    expect(e.ttftP50Ms).toBeCloseTo(700, 6);
    expect(e.ttftSamples).toBe(0);
    expect(e.outcomeSamples).toBe(1);
  });

  test("the view reports counts, the circuit and the last failure", () => {
    const store = new HealthStore({ failureThreshold: 10 });
    expect(store.view(KEY, T0)).toMatchObject({ state: "closed", successes: 0, failures: 0, lastFailureAt: null, lastFailureCode: null });
    store.recordFailure(KEY, { status: 503, code: "upstream_error" }, T0);
    store.recordSuccess(KEY, { latencyMs: 10, ttftMs: 5 }, T0 + 1);
    expect(store.view(KEY, T0 + 1)).toMatchObject({
      state: "closed",
      openUntil: null,
      successes: 1,
      failures: 1,
      consecutiveFailures: 0,
      lastFailureAt: T0,
      lastFailureStatus: 503,
      lastFailureCode: "upstream_error",
      probeInFlight: false,
    });
  });
});

describe("a shared route's circuit opens only on failures from more than one workspace (issue 52 item 14)", () => {
  const fail = (store: HealthStore, ws: string, now: number) => store.recordFailure(KEY, { workspaceId: ws }, now);

  test("a route only one workspace uses opens on that workspace's provider failures alone", () => {
    const store = new HealthStore({ failureThreshold: 3 });
    for (let i = 0; i < 3; i++) {
      store.tryAcquireProbe(KEY, T0, "ws_a");
      fail(store, "ws_a", T0);
    }
    expect(store.state(KEY, T0)).toBe("open");
  });

  test("on a route two workspaces use within the window, one workspace's failure streak never opens it", () => {
    const store = new HealthStore({ failureThreshold: 3, sharedWindowMs: 60_000 });
    store.tryAcquireProbe(KEY, T0, "ws_b");
    for (let i = 0; i < 10; i++) {
      store.tryAcquireProbe(KEY, T0 + 1_000, "ws_a");
      fail(store, "ws_a", T0 + 1_000);
    }
    expect(store.state(KEY, T0 + 1_000)).toBe("closed");
    expect(store.canAttempt(KEY, T0 + 1_000)).toBe(true);
  });

  test("on a shared route a streak with failures from two workspaces opens it", () => {
    const store = new HealthStore({ failureThreshold: 3 });
    store.tryAcquireProbe(KEY, T0, "ws_b");
    store.tryAcquireProbe(KEY, T0, "ws_a");
    fail(store, "ws_a", T0);
    fail(store, "ws_a", T0);
    expect(store.state(KEY, T0)).toBe("closed");
    fail(store, "ws_b", T0);
    expect(store.state(KEY, T0)).toBe("open");
  });

  test("once the other workspace has not used the route for the whole window, the route is no longer shared", () => {
    const store = new HealthStore({ failureThreshold: 3, sharedWindowMs: 60_000 });
    store.tryAcquireProbe(KEY, T0, "ws_b");
    const later = T0 + 60_000;
    for (let i = 0; i < 3; i++) {
      store.tryAcquireProbe(KEY, later, "ws_a");
      fail(store, "ws_a", later);
    }
    expect(store.state(KEY, later)).toBe("open");
  });

  test("a success ends the streak: the workspaces that failed before it no longer count towards opening", () => {
    const store = new HealthStore({ failureThreshold: 3 });
    store.tryAcquireProbe(KEY, T0, "ws_a");
    store.tryAcquireProbe(KEY, T0, "ws_b");
    fail(store, "ws_b", T0);
    store.recordSuccess(KEY, { latencyMs: 10 }, T0);
    for (let i = 0; i < 3; i++) fail(store, "ws_a", T0);
    expect(store.state(KEY, T0)).toBe("closed");
  });
});
