// The gateway end to end: HTTP_PROXY and NO_PROXY as a user sets them reach the upstream client the
// gateway builds (config → deps), with either client; the mock provider is reached through the test's
// proxy, or straight when NO_PROXY names it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startGateway } from "../../support/gateway";
import { startProxy, type TestProxy } from "./proxy";

const KINDS = ["sockets", "fetch"] as const;
const chat = { model: "acme/openai-only", messages: [{ role: "user", content: "hi" }], max_tokens: 10 };

let proxy: TestProxy;
beforeAll(async () => {
  proxy = await startProxy();
});
afterAll(() => proxy?.stop());

describe.each(KINDS)("the gateway's upstream requests with SWITCHYARD_UPSTREAM_CLIENT=%s", (kind) => {
  test("go through HTTP_PROXY, in absolute form", async () => {
    const g = await startGateway({ env: { SWITCHYARD_TUNING: "on", SWITCHYARD_UPSTREAM_CLIENT: kind, http_proxy: proxy.url } });
    try {
      // Asked for explicitly (SWITCHYARD_TUNING=on), so the suite run with tuning off still tests the socket client here.
      expect(g.s.deps.tuning.upstream.kind).toBe(kind);
      const before = proxy.seen.length;
      const r = await g.s.fetch("/v1/chat/completions", { method: "POST", body: JSON.stringify(chat) });
      expect(r.status).toBe(200);
      const lines = proxy.seen.slice(before).map((s) => s.line);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^POST http:\/\/127\.0\.0\.1:\d+\/p\/alpha\/.*chat\/completions HTTP\/1\.1$/);
    } finally {
      await g.stop();
    }
  });

  test("go straight to a host NO_PROXY names", async () => {
    const g = await startGateway({
      env: { SWITCHYARD_TUNING: "on", SWITCHYARD_UPSTREAM_CLIENT: kind, HTTP_PROXY: proxy.url, NO_PROXY: "localhost,127.0.0.1" },
    });
    try {
      const before = proxy.seen.length;
      const r = await g.s.fetch("/v1/chat/completions", { method: "POST", body: JSON.stringify(chat) });
      expect(r.status).toBe(200);
      expect(proxy.seen.slice(before)).toEqual([]);
    } finally {
      await g.stop();
    }
  });
});
