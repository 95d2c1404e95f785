// Credits are reserved like budgets (issue 52 items 3 and 4), through the real server on SQLite and
// Postgres: a call holds its worst-case cost against the balance from admission to settlement.
// The chat calls below ask acme/openai-only (alpha: $1 in, $2 out per 1M) for 10 tokens on a 1-token
// prompt, so one call's worst case is 1 + 10 × 2 = 21 µ$; the mock answers with exactly that usage.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { startGateway, type TestGateway } from "../../support/gateway";
import { eventually } from "../../support/spawn";
import { DIALECTS } from "./test-db";

const WORST = 21;

const creditChat = (g: TestGateway, body: Record<string, unknown> = {}, init: RequestInit = {}) =>
  g.s.fetch("/v1/chat/completions", {
    method: "POST",
    ...init,
    body: JSON.stringify({ model: "acme/openai-only", messages: [{ role: "user", content: "abcd" }], max_tokens: 10, ...body }),
  });

const codeOf = async (r: Response) => ((await r.json()) as { error?: { code: string } }).error?.code ?? "ok";

/** Fires `n` calls at once and counts the answers by error code ("ok" for a 200). */
async function burst(n: number, call: () => Promise<Response>): Promise<Record<string, number>> {
  const codes = await Promise.all(Array.from({ length: n }, async () => codeOf(await call())));
  const out: Record<string, number> = {};
  for (const c of codes) out[c] = (out[c] ?? 0) + 1;
  return out;
}

for (const db of DIALECTS) {
  describe(`credit holds on ${db}`, () => {
    let g: TestGateway;
    beforeEach(async () => {
      g = await startGateway({ db, config: { credits: { enforce: true } } });
      // Slow enough that every call of a burst is admitted before the first one settles.
      g.mock.setScript({ route: "chat" }, { kind: "reply", usage: { input: 1, output: 10 }, delayMs: 400 });
    });
    afterEach(() => g.stop());

    test("20 concurrent calls on a balance below one call's worst case: one is served, 19 get insufficient_credits", async () => {
      await g.s.deps.credits.add(g.s.workspaceId, 5, "top_up");
      expect(await burst(20, () => creditChat(g))).toEqual({ ok: 1, insufficient_credits: 19 });
      expect(g.mock.requests.filter((r) => r.route === "chat")).toHaveLength(1);
    });

    test("a balance of three calls' worst case serves three of 20 concurrent calls and ends at zero, not below", async () => {
      await g.s.deps.credits.add(g.s.workspaceId, 3 * WORST, "top_up");
      expect(await burst(20, () => creditChat(g))).toEqual({ ok: 3, insufficient_credits: 17 });
      expect(g.s.deps.credits.balance(g.s.workspaceId)).toBe(0);
    });

    test("holds are released on every outcome: upstream error, failover exhausted, client abort, stream, no route", async () => {
      await g.s.deps.credits.add(g.s.workspaceId, WORST, "top_up");
      // Each outcome below would leave the balance fully held (and the next call refused) if its hold leaked.
      g.mock.setScript({ route: "chat" }, [
        { kind: "error", status: 400, message: "bad" },
        { kind: "error", status: 500 },
      ]);
      expect(await codeOf(await creditChat(g))).toBe("invalid_request");
      expect(await codeOf(await creditChat(g))).toBe("provider_error");
      g.mock.setScript({ route: "chat" }, { kind: "hang" });
      const abort = new AbortController();
      const left = creditChat(g, {}, { signal: abort.signal }).catch(() => null);
      await g.mock.waitForRequests(3);
      abort.abort();
      await left;
      g.mock.setScript({ route: "chat" }, { kind: "reply", usage: { input: 0, output: 0 } });
      // The gateway learns of the abort asynchronously: poll until the hold is gone.
      expect(await eventually(async () => (await creditChat(g)).status === 200)).toBe(true);
      const stream = await creditChat(g, { stream: true });
      expect(stream.status).toBe(200);
      await stream.text();
      expect((await creditChat(g)).status).toBe(200);
      // No route: refused before admission, nothing held.
      expect(await codeOf(await creditChat(g, { model: "acme/unroutable" }))).not.toBe("ok");
      expect((await creditChat(g)).status).toBe(200);
    });

    test("a call refused a hold while another holds the balance is served by a BYOK route, never by a platform one", async () => {
      await g.s.deps.credits.add(g.s.workspaceId, 5, "top_up");
      const created = await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/byok-keys`, {
        method: "POST",
        body: JSON.stringify({ provider: "alpha", api_key: "sk-byok-alpha-0123456789" }),
      });
      expect(created.status).toBe(201);
      // acme/chat by cost: gamma (platform) first, then alpha (the workspace's BYOK key).
      const viaGateway = (r: Response) => r.json() as Promise<{ routing_metadata: { provider: string } }>;
      const body = { model: "acme/chat", gateway: { routing: { optimize: "cost" } } };
      const first = creditChat(g, body);
      await g.mock.waitForRequests(1);
      const second = await creditChat(g, body);
      expect(second.status).toBe(200);
      expect((await viaGateway(second)).routing_metadata.provider).toBe("alpha");
      expect((await viaGateway(await first)).routing_metadata.provider).toBe("gamma");
    });

    for (const [what, body] of [
      ["extensions raise max_tokens", { extensions: { alpha: { max_tokens: 20 } } }],
      ["extensions raise n", { extensions: { alpha: { n: 2 } } }],
      ["the request's own n", { n: 2 }],
      ["extensions replace the messages", { extensions: { alpha: { messages: [{ role: "user", content: "x".repeat(400) }] } } }],
    ] as const) {
      test(`the hold is the final upstream body's worst case: when ${what}, a balance just above the plain estimate refuses the next call`, async () => {
        await g.s.deps.credits.add(g.s.workspaceId, WORST + 1, "top_up");
        const first = Promise.withResolvers<void>();
        g.mock.setScript({ route: "chat" }, { kind: "reply", usage: { input: 0, output: 0 }, holdFirst: first.promise });
        // A plain call holds 21 of 22 µ$ and leaves room for one more call...
        const plain = creditChat(g);
        await g.mock.waitForRequests(1);
        expect((await creditChat(g)).status).toBe(200);
        first.resolve();
        expect((await plain).status).toBe(200);
        g.mock.reset();
        const second = Promise.withResolvers<void>();
        g.mock.setScript({ route: "chat" }, { kind: "reply", usage: { input: 0, output: 0 }, holdFirst: second.promise });
        // ...the same call made dearer by what it sends holds more than the balance: the next one is refused.
        const dear = creditChat(g, body);
        await g.mock.waitForRequests(1);
        expect(await codeOf(await creditChat(g))).toBe("insufficient_credits");
        second.resolve();
        expect((await dear).status).toBe(200);
      });
    }

    test("the budget reservation is the final body's worst case too: extensions raising max_tokens hold more of the budget", async () => {
      await g.s.deps.credits.add(g.s.workspaceId, 1_000_000, "top_up");
      const created = await g.s.fetch(`/v1/workspaces/${g.s.workspaceId}/budgets`, {
        method: "POST",
        body: JSON.stringify({ scope: "workspace", period: "daily", limit: 0.000022, enforce: true }),
      });
      expect(created.status).toBe(201);
      const first = Promise.withResolvers<void>();
      g.mock.setScript({ route: "chat" }, { kind: "reply", usage: { input: 0, output: 0 }, holdFirst: first.promise });
      const dear = creditChat(g, { extensions: { alpha: { max_tokens: 20 } } });
      await g.mock.waitForRequests(1);
      expect(await codeOf(await creditChat(g))).toBe("budget_exceeded");
      first.resolve();
      expect((await dear).status).toBe(200);
    });
  });
}
