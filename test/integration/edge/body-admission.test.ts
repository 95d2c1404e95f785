// The edge admits a body only after the key: 401 before any of it is read, bodies counted as they stream
// in (413 request_too_large at max_request_body_mb, Content-Length or not), nesting capped at parse, and
// NUL refused in bodies and management query/path parameters (issue 52 items 1, 11, 12).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { startServer, type InProcessServer } from "../../support/server";
import { openSession, type Session } from "../management/harness";

let s: InProcessServer;
beforeAll(async () => {
  s = await startServer({ configFile: { max_request_body_mb: { inference: 1, management: 0.25 } }, logLevel: "warn" });
  await s.fetch("/v1/models");
});
afterAll(() => s.stop());

const CHAT = "/v1/chat/completions";
const mgmt = () => `/v1/workspaces/${s.workspaceId}/api-keys`;

/** A chunked POST written 64 KB at a time until the server answers (or `maxBytes` is sent): how much it took. */
function streamedPost(path: string, headers: Record<string, string>, maxBytes: number): Promise<{ status: number; sent: number }> {
  const port = Number(new URL(s.url).port);
  return new Promise((resolve, reject) => {
    const sock = connect(port, "127.0.0.1");
    let sent = 0;
    let answered = false;
    let head = "";
    const deadline = setTimeout(() => reject(new Error("no answer in 10 s")), 10_000);
    sock.on("data", (d) => {
      head += d.toString("latin1");
      const m = /^HTTP\/1\.1 (\d{3})/.exec(head);
      if (m && !answered) {
        answered = true;
        clearTimeout(deadline);

        sock.destroy();
        resolve({ status: Number(m[1]), sent });
      }
    });
    sock.on("error", () => {});
    const chunk = Buffer.concat([Buffer.from("10000\r\n"), Buffer.alloc(0x10000, "a"), Buffer.from("\r\n")]);
    const lines = Object.entries({ host: "x", "transfer-encoding": "chunked", ...headers }).map(([k, v]) => `${k}: ${v}`);
    sock.write(`POST ${path} HTTP/1.1\r\n${lines.join("\r\n")}\r\n\r\n1b\r\n{"model":"x","messages":"aa\r\n`);
    const pump = () => {
      while (!answered && sent < maxBytes) {
        sent += 0x10000;
        if (!sock.write(chunk)) return void sock.once("drain", pump);
      }
    };
    sock.on("connect", pump);
  });
}

describe("authenticate before reading the body", () => {
  for (const [name, path, key] of [
    ["chat, no key", CHAT, null],
    ["messages, no key", "/v1/messages", null],
    ["responses, unknown key", "/v1/responses", "ak_" + "Z".repeat(40)],
    ["management, no key", "", null],
    ["management, unknown key", "", "ak_" + "Y".repeat(40)],
  ] as const) {
    test(`no valid key + a malformed body is 401, not 400 (${name})`, async () => {
      const r = await s.fetch(path || mgmt(), { method: "POST", key, body: '{"not json' });
      expect(r.status).toBe(401);
    });
  }

  for (const [name, path] of [
    ["inference", CHAT],
    ["management", ""],
  ] as const) {
    test(`no key + a 60 MB streamed body is 401 before the body is sent (${name})`, async () => {
      const r = await streamedPost(path || mgmt(), {}, 60 * 1024 * 1024);
      expect(r.status).toBe(401);
      expect(r.sent).toBeLessThan(16 * 1024 * 1024);
    });

    test(`a valid key + a chunked body past max_request_body_mb is 413, the server stops reading (${name})`, async () => {
      const r = await streamedPost(path || mgmt(), { authorization: `Bearer ${s.adminKey}` }, 60 * 1024 * 1024);
      expect(r.status).toBe(413);
      expect(r.sent).toBeLessThan(30 * 1024 * 1024);
    });
  }

  test("a valid key + a declared body past max_request_body_mb is 413 request_too_large in the envelope", async () => {
    const big = JSON.stringify({ model: "x", messages: [{ role: "user", content: "a".repeat(1_200_000) }] });
    const r = await s.fetch(CHAT, { method: "POST", body: big });
    expect(r.status).toBe(413);
    const e = ((await r.json()) as { error: { code: string; type: string } }).error;
    expect(e.code).toBe("request_too_large");
    const m = await s.fetch(mgmt(), { method: "POST", body: JSON.stringify({ name: "a".repeat(300_000) }) });
    expect(m.status).toBe(413);
    expect(((await m.json()) as { error: { code: string } }).error.code).toBe("request_too_large");
    const a = await s.fetch("/v1/messages", { method: "POST", body: big });
    expect(a.status).toBe(413);
    expect(((await a.json()) as { error: { type: string } }).error.type).toBe("request_too_large");
  });

  test("a body nested 100k deep is 400 invalid_request, not 500 (inference and management)", async () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    for (const path of [CHAT, mgmt()]) {
      const r = await s.fetch(path, { method: "POST", body: deep });
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe("invalid_request");
    }
  });

  test("a NUL in an inference body field is 400 invalid_parameter naming it", async () => {
    const r = await s.fetch(CHAT, {
      method: "POST",
      body: JSON.stringify({ model: "x", messages: [{ role: "user", content: "hi" }], gateway: { metadata: { trace_id: "t\u0000" } } }),
    });
    expect(r.status).toBe(400);
    const e = ((await r.json()) as { error: { code: string; param: string } }).error;
    expect(e).toMatchObject({ code: "invalid_parameter", param: "gateway.metadata.trace_id" });
  });
});

for (const db of ["sqlite", "postgres"] as const) {
  describe(`NUL is refused in management bodies, query and path parameters on ${db}`, () => {
    let m: Session;
    beforeAll(async () => {
      m = await openSession(db);
    });
    afterAll(() => m.stop());

    test("a NUL in a body field, a query parameter or a path parameter is 400 invalid_parameter naming it", async () => {
      const body = await m.call("POST", m.w("/api-keys"), { body: { name: "a\u0000b", scopes: ["keys:read"] } });
      expect(body.status).toBe(400);
      expect(body.json.error).toMatchObject({ code: "invalid_parameter", param: "name" });
      const query = await m.call("GET", m.w("/requests?trace_id=x%00y"));
      expect(query.status).toBe(400);
      expect(query.json.error).toMatchObject({ code: "invalid_parameter", param: "trace_id" });
      const path = await m.call("GET", m.w("/api-keys/key%00x"));
      expect(path.status).toBe(400);
      expect(path.json.error).toMatchObject({ code: "invalid_parameter", param: "api_key_id" });
    });
  });
}

test("a NUL in a catalog route's path or query parameter is 400 invalid_parameter naming it", async () => {
  const path = await s.fetch("/v1/models/acme%00x");
  expect(path.status).toBe(400);
  expect(((await path.json()) as { error: { param: string } }).error.param).toBe("path");
  const query = await s.fetch("/v1/registry/models?provider=a%00");
  expect(query.status).toBe(400);
  expect(((await query.json()) as { error: { param: string } }).error.param).toBe("provider");
});

describe("the Elysia routes (app.handle) admit bodies as the served routes do", () => {
  test("app.handle: no key + a malformed body is 401, an oversized one with a key 413", async () => {
    const { createApp } = await import("../../../src/app");
    const app = createApp(s.deps);
    const noKey = await app.handle(new Request(`http://local${CHAT}`, { method: "POST", body: '{"not json' }));
    expect(noKey.status).toBe(401);
    const big = "x".repeat(1_200_000);
    const headers = { authorization: `Bearer ${s.adminKey}` };
    const over = await app.handle(new Request(`http://local${CHAT}`, { method: "POST", body: big, headers }));
    expect(over.status).toBe(413);
    expect(((await over.json()) as { error: { code: string } }).error.code).toBe("request_too_large");
  });
});
