// The one converter from a schema failure to ApiError: param from the JSON pointer (none at the root),
// the caller's wording and code, and the same answers its three callers gave before they shared it.
import { describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { fieldApiError, plainWording, schemaApiError } from "../../../src/http/schema-error";
import { check } from "../../../src/management/validate";
import { ApiError } from "../../../src/http/errors";

const first = (schema: Parameters<typeof Value.Errors>[0], value: unknown) => Value.Errors(schema, value).First()!;
const S = Type.Object({ items: Type.Array(Type.Object({ name: Type.String() })) });

describe("schemaApiError", () => {
  test("names the field by its path, worded by the caller", () => {
    const e = schemaApiError(first(S, { items: [{ name: 5 }] }), plainWording);
    expect(e).toBeInstanceOf(ApiError);
    expect(e.body().error).toMatchObject({
      code: "invalid_parameter",
      param: "items[0].name",
      message: "Invalid 'items[0].name': Expected string.",
    });
  });

  test("the value as a whole has no param; the envelope says null", () => {
    const e = schemaApiError(first(S, "nope"), plainWording);
    expect(e.extra.param).toBeUndefined();
    expect(e.body().error.param).toBeNull();
    expect(e.message).toBe("Expected object.");
  });

  test("the code may depend on the field", () => {
    const e = schemaApiError(first(S, { items: 1 }), plainWording, (p) => (p === "items" ? "validation_error" : "invalid_parameter"));
    expect([e.code, e.status]).toEqual(["validation_error", 422]);
  });

  test("fieldApiError: a message already written (inference's wording)", () => {
    expect(fieldApiError("input[2].content", "'input[2].content' is required.").body().error).toMatchObject({
      param: "input[2].content",
      message: "'input[2].content' is required.",
    });
  });

  test("management's check keeps its wording and codes through it", () => {
    const B = Type.Object(
      { limit: Type.Number({ exclusiveMinimum: 0, description: "a number of USD greater than 0" }) },
      { additionalProperties: false },
    );
    const fail = (v: unknown) => {
      try {
        check(B, v, { codeFor: (p) => (p === "limit" ? "validation_error" : "invalid_parameter") });
      } catch (err) {
        return err as ApiError;
      }
      throw new Error("accepted");
    };
    expect([fail({ limit: -1 }).code, fail({ limit: -1 }).message]).toEqual([
      "validation_error",
      "Invalid 'limit': expected a number of USD greater than 0.",
    ]);
    expect([fail({ limit: 1, x: 1 }).code, fail({ limit: 1, x: 1 }).message]).toEqual([
      "invalid_parameter",
      "Invalid 'x': is not a known field.",
    ]);
    expect([fail([]).code, fail([]).message]).toEqual(["invalid_parameter", "The request body must be a JSON object."]);
  });
});
