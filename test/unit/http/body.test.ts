import { describe, expect, test } from "bun:test";
import { MAX_JSON_DEPTH, parseJsonBody, readBody } from "../../../src/http/body";
import { ApiError } from "../../../src/http/errors";

function refusal(text: string): { code: string; param: string | null | undefined } | null {
  try {
    parseJsonBody(text);
    return null;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { code: err.code, param: err.extra.param };
  }
}

describe("JSON nesting depth is capped at parse", () => {
  test(`${MAX_JSON_DEPTH} levels parse, one more is 400 invalid_request`, () => {
    expect(refusal("[".repeat(MAX_JSON_DEPTH) + "]".repeat(MAX_JSON_DEPTH))).toBeNull();
    const over = "[".repeat(MAX_JSON_DEPTH + 1) + "]".repeat(MAX_JSON_DEPTH + 1);
    expect(refusal(over)).toEqual({ code: "invalid_request", param: undefined });
  });

  test("brackets and escaped quotes inside strings do not count as nesting", () => {
    expect(refusal(JSON.stringify({ a: "[".repeat(500), b: '\\"{{{{' + "{".repeat(200) }))).toBeNull();
  });
});

describe("strings Postgres text cannot hold (NUL) are refused, naming the field", () => {
  test("in a value, a key, and through keys with / and ~", () => {
    expect(refusal(JSON.stringify({ a: [{ b: "x\u0000" }] }))).toEqual({ code: "invalid_parameter", param: "a[0].b" });
    expect(refusal(JSON.stringify({ "a/b~c": { d: "\u0000" } }))).toEqual({ code: "invalid_parameter", param: "a/b~c.d" });
    expect(refusal(JSON.stringify({ "k\u0000": 1 }))?.param).toBe("k\\u0000");
  });

  test("an escaped backslash before u0000 is not a NUL", () => {
    expect(refusal(JSON.stringify({ a: "\\u0000" }))).toBeNull();
  });
});

describe("the body limit applies while the body streams in", () => {
  test("a stream without Content-Length is cut at the limit and not read further", async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        pulled++;
        c.enqueue(new Uint8Array(1024));
        if (pulled === 10_000) c.close();
      },
    });
    const request = new Request("http://local/", { method: "POST", body, duplex: "half" } as RequestInit);
    request.headers.delete("content-length");
    await expect(readBody(request, 4096)).rejects.toMatchObject({ code: "request_too_large" });
    expect(pulled).toBeLessThan(20);
  });
});
