// The shared route-health wire: every kind of sample survives encode → JSON → decode.
import { describe, expect, test } from "bun:test";
import { decodeSample, encodeFailure, encodeFirstToken, encodeSuccess } from "../../../src/routing/health-wire";

const roundTrip = (w: unknown) => decodeSample(JSON.parse(JSON.stringify(w)));

describe("route-health wire", () => {
  test("a success, a failure and a first token come back as the HealthStore takes them", () => {
    expect(roundTrip(encodeSuccess("a/m", 5, { ttftMs: 120.04, tps: 61.234, latencyMs: 900 }))).toEqual({
      key: "a/m",
      age: 5,
      s: { kind: 0, sample: { latencyMs: 900, ttftMs: 120, tps: 61.23 } },
    });
    expect(roundTrip(encodeFailure("a/m", 7, { status: 503, code: "provider_error", workspaceId: "w", retryAfterMs: 2_000 }))).toEqual({
      key: "a/m",
      age: 7,
      s: { kind: 1, sample: { status: 503, code: "provider_error", workspaceId: "w", retryAfterMs: 2_000 } },
    });
    const first = roundTrip(encodeFirstToken("a/m", 3, { latencyMs: Number.NaN, ttftMs: 88.26 }));
    expect(first?.s.kind).toBe(2);
    expect(first?.s.sample).toMatchObject({ ttftMs: 88.3 });
  });

  test("a first token without a figure is malformed, not a zero", () => {
    expect(decodeSample([2, "a/m", 1, null])).toBeNull();
  });
});
