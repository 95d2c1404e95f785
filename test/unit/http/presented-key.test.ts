// The presented API key: the fast path for the usual "Bearer <token>" must agree with the general rule.
import { expect, test } from "bun:test";
import { presentedKey } from "../../../src/http/auth";

const h = (init: Record<string, string>) => new Headers(init);

test("Authorization: Bearer <token> presents the token, whatever the scheme's case and the spaces around it", () => {
  for (const value of [
    "Bearer ak_abc123",
    "bearer ak_abc123",
    "BEARER ak_abc123",
    "Bearer    ak_abc123",
    "Bearer ak_abc123   ",
    "Bearer\tak_abc123",
  ]) {
    expect(presentedKey(h({ authorization: value }), false)).toBe("ak_abc123");
  }
});

test("a malformed Authorization header presents an empty key (answered as malformed), never a fragment of it", () => {
  for (const value of ["Bearer", "Bearer ", "Bearer ak_a ak_b", "Basic ak_abc123", "ak_abc123", "Bearer ak_a\tb"]) {
    expect(presentedKey(h({ authorization: value }), false)).toBe("");
  }
});

test("x-api-key is read only where the route allows it, and Authorization wins when both are sent", () => {
  expect(presentedKey(h({ "x-api-key": "ak_x" }), false)).toBeNull();
  expect(presentedKey(h({ "x-api-key": "ak_x" }), true)).toBe("ak_x");
  expect(presentedKey(h({ "x-api-key": "ak_x", authorization: "Bearer ak_y" }), true)).toBe("ak_y");
  expect(presentedKey(h({}), true)).toBeNull();
});
