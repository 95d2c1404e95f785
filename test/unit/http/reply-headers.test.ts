import { describe, expect, test } from "bun:test";
import { withHeaders } from "../../../src/http/reply-headers";

/** The header pairs as sent (the DOM typings here lack Headers iteration; Bun has it). */
const pairs = (h: Headers): [string, string][] => {
  const out: [string, string][] = [];
  h.forEach((value, name) => out.push([name, value]));
  return out.sort();
};

describe("withHeaders", () => {
  test("sets each source's headers in turn: a later source's value replaces an earlier one's, whatever the name's case", () => {
    const res = withHeaders(
      new Response("{}"),
      { "x-request-id": "a", "X-RateLimit-Limit-Requests": 60 },
      { "X-Request-Id": "b" },
      {
        "content-type": "application/json",
      },
    );
    expect(res.headers.get("x-request-id")).toBe("b");
    expect(res.headers.get("x-ratelimit-limit-requests")).toBe("60");
    // A string body's default text/plain is replaced, not joined with it.
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(pairs(res.headers).map(([name]) => name)).toEqual(["content-type", "x-ratelimit-limit-requests", "x-request-id"]);
  });

  test("a stream body gets exactly the headers given", async () => {
    const res = withHeaders(new Response(new ReadableStream({ start: (c) => c.close() })), { "cache-control": "no-cache" });
    expect(pairs(res.headers)).toEqual([["cache-control", "no-cache"]]);
    expect(await res.text()).toBe("");
  });
});
