// Issue 52 item 14: one workspace's self-inflicted failures (bad requests, its own BYOK key's 429s, a long
// stream's whole-duration timeout) and its provider failures alone cannot open the circuit of a route
// another workspace also uses; failures from both do.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { gatewayConfig, startGateway, type TestGateway } from "../../support/gateway";
import { startMockUpstream, type MockUpstream } from "../../support/mock-upstream";
import { startServer, type InProcessServer } from "../../support/server";
import { testDatabaseKinds } from "../../support/databases";
import { SCOPES } from "../../../src/auth/scopes";

const kinds = await testDatabaseKinds();
const ROUTE = "alpha/alpha-solo";
const BYOK = "sk-tenant-a-own-alpha-key-0123456789";

for (const kind of kinds) {
  describe(`a tenant cannot open a shared route's circuit for everyone, on ${kind}`, () => {
    let g: TestGateway;
    let keyB: string;
    beforeAll(async () => {
      g = await startGateway({ db: kind, config: { circuit: { failure_threshold: 3, cooldown_ms: 60_000 } } });
      const other = await g.s.deps.repos.workspaces.create("Other tenant");
      keyB = (await g.s.deps.repos.apiKeys.create({ workspaceId: other.id, name: "b", scopes: [...SCOPES] })).key;
    });
    afterAll(() => g.stop());

    const chat = async (key?: string) => {
      const r = await g.s.fetch("/v1/chat/completions", {
        method: "POST",
        body: JSON.stringify({ model: "acme/openai-only", messages: [{ role: "user", content: "hi" }] }),
        ...(key ? { key } : {}),
      });
      await r.text();
      return r.status;
    };
    const withByok = (req: { headers: Record<string, string>; route: string }) =>
      req.route === "chat" && req.headers.authorization === `Bearer ${BYOK}`;
    const state = () => g.s.deps.health.state(ROUTE, Date.now());

    test("workspace A's bad requests, BYOK 429s and its own 5xx streak leave the route closed for workspace B; B's failures added to A's open it", async () => {
      // Workspace B uses the route (platform key): it is shared from now on.
      expect(await chat(keyB)).toBe(200);
      const created = await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/byok-keys`, {
        method: "POST",
        body: JSON.stringify({ provider: "alpha", api_key: BYOK }),
      });
      expect(created.status).toBe(201);

      g.mock.setScript(withByok, { kind: "error", status: 400, message: "max_tokens is too large" });
      for (let i = 0; i < 4; i++) expect(await chat()).toBe(400);
      g.mock.setScript(withByok, { kind: "error", status: 429, message: "your key's rate limit" });
      for (let i = 0; i < 4; i++) expect(await chat()).not.toBe(200);
      expect(state()).toBe("closed");

      // Provider failures seen by A alone do not open a route B also uses.
      g.mock.setScript(withByok, { kind: "error", status: 500 });
      for (let i = 0; i < 4; i++) expect(await chat()).not.toBe(200);
      expect(state()).toBe("closed");
      expect(await chat(keyB)).toBe(200);

      // The same provider failures from B as well: the route is failing for everyone, and it opens.
      g.mock.setScript({ provider: "alpha", route: "chat" }, { kind: "error", status: 500 });
      expect(await chat()).not.toBe(200);
      expect(await chat(keyB)).not.toBe(200);
      expect(await chat()).not.toBe(200);
      expect(state()).toBe("open");
    });
  });
}

describe("a stream's whole-duration timeout is not the provider's failure; its mid-stream silence is", () => {
  let mock: MockUpstream;
  let s: InProcessServer;
  beforeAll(async () => {
    mock = await startMockUpstream();
    const config = gatewayConfig(mock, { circuit: { failure_threshold: 1, cooldown_ms: 60_000 } });
    // A whole stream may last 400 ms on alpha: a long generation the request asked for runs past it.
    Object.assign(config.providers.alpha, { stream_timeout_ms: 400 });
    s = await startServer({ configFile: config });
  });
  afterAll(async () => {
    await s.stop();
    await mock.stop();
  });
  const stream = async (model: string) => {
    const r = await s.fetch("/v1/chat/completions", {
      method: "POST",
      body: JSON.stringify({ model, stream: true, messages: [{ role: "user", content: "hi" }] }),
    });
    return r.text();
  };

  test("a stream cut by stream_timeout_ms leaves the route's circuit closed (threshold 1); one gone silent past idle_timeout_ms opens it", async () => {
    mock.setScript({ provider: "alpha" }, { kind: "reply", text: Array.from({ length: 30 }, (_, i) => `w${i}`).join(" "), gapMs: 50 });
    expect(await stream("acme/openai-only")).toContain("total time limit");
    expect(s.deps.health.state("alpha/alpha-solo", Date.now())).toBe("closed");
    mock.setScript({ provider: "gamma" }, { kind: "reply", text: "a b c d e f", gapMs: 10, hangAfterChunks: 2 });
    expect(await stream("acme/gemini-only")).toContain("went silent");
    expect(s.deps.health.state("gamma/gemini-solo", Date.now())).toBe("open");
  });
});
