import { describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { writeOutcome } from "../../../src/management/propagation";
import { check, checkQuery, dateRange, oneOf } from "../../../src/management/validate";
import { ApiError } from "../../../src/http/errors";

describe("writeOutcome", () => {
  test("single instance: 201/200/204 and no pending; shared: 202 pending", () => {
    expect(writeOutcome(false, "created")).toEqual({ status: 201, propagationStatus: null });
    expect(writeOutcome(false, "updated")).toEqual({ status: 200, propagationStatus: null });
    expect(writeOutcome(false, "deleted")).toEqual({ status: 204, propagationStatus: null });
    for (const kind of ["created", "updated", "deleted"] as const)
      expect(writeOutcome(true, kind)).toEqual({ status: 202, propagationStatus: "pending" });
  });
});

describe("validation helpers", () => {
  const S = Type.Object(
    { mode: oneOf(["a", "b"] as const), items: Type.Optional(Type.Array(Type.String())) },
    { additionalProperties: false },
  );
  const fail = (f: () => unknown): ApiError => {
    try {
      f();
    } catch (e) {
      return e as ApiError;
    }
    throw new Error("expected a throw");
  };

  test("errors name the field path and never echo the value", () => {
    const e = fail(() => check(S, { mode: "sk-secret-value" }));
    expect(e.code).toBe("invalid_parameter");
    expect(e.extra.param).toBe("mode");
    expect(e.message).toBe("Invalid 'mode': expected one of a, b.");
    expect(fail(() => check(S, { mode: "a", items: ["x", 5] })).extra.param).toBe("items[1]");
    expect(fail(() => check(S, { mode: "a", extra: "sk-secret" })).message).toBe("Invalid 'extra': is not a known field.");
    expect(fail(() => check(S, "nope")).extra.param).toBeUndefined();
    expect(fail(() => check(S, { mode: "c" }, { codeFor: () => "validation_error" })).code).toBe("validation_error");
  });

  test("query values are converted before checking", () => {
    const Q = Type.Object({ n: Type.Optional(Type.Integer({ minimum: 1 })), f: Type.Optional(Type.Boolean()) });
    expect(checkQuery(Q, { n: "5", f: "false", z: undefined })).toEqual({ n: 5, f: false });
    expect(fail(() => checkQuery(Q, { n: "0" })).extra.param).toBe("n");
  });

  test("date ranges: whole UTC days, end inclusive; reversed is 400 on end_date", () => {
    expect(dateRange("2026-01-01", "2026-01-01")).toEqual({
      start: Date.parse("2026-01-01T00:00:00Z"),
      end: Date.parse("2026-01-02T00:00:00Z"),
    });
    expect(dateRange(undefined, "2026-01-01T10:00:00Z")).toEqual({ start: undefined, end: Date.parse("2026-01-01T10:00:00Z") });
    expect(fail(() => dateRange("2026-02-01", "2026-01-01")).extra.param).toBe("end_date");
  });
});
