import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startGateway, type TestGateway } from "../../support/gateway";
import { eventually } from "../../support/spawn";
import { fixtureSseEvents } from "../../support/mock-upstream-wire";

// Every rule here holds for both upstream clients: Bun's fetch (the default) and the socket client.
for (const client of ["fetch", "sockets"] as const) {
  describe(`with the ${client} upstream client`, () => {
    let g: TestGateway;
    beforeAll(async () => {
      g = await startGateway({ env: { SWITCHYARD_TUNING: "on", SWITCHYARD_UPSTREAM_CLIENT: client } });
      g.s.deps.inference.keepAliveMs = 100;
    });
    afterAll(() => g.stop());

    const body = (extra: Record<string, unknown> = {}) =>
      JSON.stringify({ model: "acme/openai-only", stream: true, messages: [{ role: "user", content: "x" }], ...extra });

    /** The request's record once the writer has it on disk (flushing until it appears, 3 s at most). */
    async function recordOf(requestId: string) {
      let row:
        { errorCode: string | null; statusCode: number; inputTokens: number; outputTokens: number; usageEstimated: boolean } | undefined;
      await eventually(async () => {
        await g.s.deps.records.flush();
        row = (await g.s.deps.db.orm.select().from(g.s.deps.db.t.requestRecords)).find((x) => x.requestId === requestId);
        return row !== undefined;
      }, 3_000);
      return row;
    }

    describe("stream lifecycle", () => {
      // Recorded OpenAI streams (the second in today's shape: `"obfuscation"` padding after the choice):
      // their content chunks after the first are plain (upstream-events.ts pass-through).
      for (const [fixture, contents] of [
        ["openai/text.chunks.txt", ["", "Hello", "! Grüße", " 👋 — how", " can I help?"]],
        ["openai/obfuscated.chunks.txt", ["", "Sure", ",", " here", " is", ' a "quote"', " — café ☕"]],
      ] as const) {
        test(`plain content chunks arriving one per read (passed through as bytes) reach the client exactly as when the whole stream comes in one read: ${fixture}`, async () => {
          const events = fixtureSseEvents("openai", fixture);
          const clientText = async (chunks: string[]) => {
            g.mock.setScript({ provider: "alpha" }, { kind: "sse", chunks, gapMs: 5 });
            const r = await g.s.fetch("/v1/chat/completions", { method: "POST", body: body() });
            expect(r.status).toBe(200);
            // The routing_metadata chunk carries this attempt's timings: everything else must match.
            return (await r.text()).split("\n\n").filter((e) => !e.includes('"routing_metadata"'));
          };
          const oneRead = await clientText([events.join("")]);
          const readByRead = await clientText(events);
          expect(readByRead).toEqual(oneRead);
          const deltas = oneRead.filter((e) => e.includes('"content":')).map((e) => JSON.parse(e.slice(6)).choices[0].delta.content);
          expect(deltas).toEqual([...contents]);
          expect(oneRead.some((e) => e.includes("obfuscation"))).toBe(false);
        });
      }

      test("a stream that goes silent after plain chunks passed through as bytes ends with provider_timeout once idle_timeout_ms passes", async () => {
        // The role chunk, "Hello" (commits the stream), then two plain chunks one per read; then nothing.
        const events = fixtureSseEvents("openai", "openai/text.chunks.txt");
        g.mock.setScript({ provider: "alpha" }, { kind: "sse", chunks: events, gapMs: 5, hangAfterChunks: 4 });
        const r = await g.s.fetch("/v1/chat/completions", { method: "POST", body: body(), headers: { "x-request-id": "silent-1" } });
        const text = await r.text();
        expect(text).toContain('"content":" 👋 — how"');
        expect(text).toContain("went silent mid-stream");
        expect(text).not.toContain("can I help");
        expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
        expect(await recordOf("silent-1")).toMatchObject({ errorCode: "provider_timeout" });
        g.mock.reset();
      });

      test("when the client disconnects after content, the upstream is read on to its usage (not written) and the attempt recorded as cancelled with that usage", async () => {
        g.mock.setScript(
          { provider: "alpha" },
          { kind: "reply", text: "a b c d e f g h i j k l m n o p", gapMs: 20, usage: { input: 21, output: 16 } },
        );
        const ac = new AbortController();
        const r = await g.s.fetch("/v1/chat/completions", {
          method: "POST",
          body: body(),
          signal: ac.signal,
          headers: { "x-request-id": "cancel-1" },
        });
        const reader = r.body!.getReader();
        await reader.read();
        ac.abort();
        expect(await recordOf("cancel-1")).toMatchObject({
          errorCode: "cancelled",
          statusCode: 499,
          inputTokens: 21,
          outputTokens: 16,
          usageEstimated: false,
        });
        g.mock.reset();
      });

      test("when the client disconnects and the upstream stalls, it is cancelled once clientGoneDrainMs passes and the attempt charged an estimate", async () => {
        g.s.deps.inference.clientGoneDrainMs = 150;
        const alpha = g.s.deps.catalog.providers.get("alpha")! as { idleTimeoutMs: number };
        const saved = alpha.idleTimeoutMs;
        alpha.idleTimeoutMs = 30_000; // only the drain bound can end the stream within the test
        try {
          g.mock.setScript({ provider: "alpha" }, { kind: "reply", text: "a b c d e f", hangAfterChunks: 3 });
          const ac = new AbortController();
          const r = await g.s.fetch("/v1/chat/completions", {
            method: "POST",
            body: body(),
            signal: ac.signal,
            headers: { "x-request-id": "cancel-stall-1" },
          });
          await r.body!.getReader().read();
          ac.abort();
          expect(await eventually(() => g.mock.requests.at(-1)?.aborted === true, 5_000)).toBe(true);
          const row = await recordOf("cancel-stall-1");
          expect(row).toMatchObject({ errorCode: "cancelled", statusCode: 499, usageEstimated: true });
          expect(row!.outputTokens).toBeGreaterThanOrEqual(1);
        } finally {
          alpha.idleTimeoutMs = saved;
          delete g.s.deps.inference.clientGoneDrainMs;
          g.mock.reset();
        }
      });

      test("a client that leaves while its first token is awaited aborts the upstream request and is recorded as cancelled", async () => {
        // The role chunk comes, then nothing: the gateway is still waiting for content (no response yet).
        g.mock.setScript({ provider: "alpha" }, { kind: "reply", text: "never sent", hangAfterChunks: 1 });
        const ac = new AbortController();
        const pending = g.s
          .fetch("/v1/chat/completions", { method: "POST", body: body(), signal: ac.signal, headers: { "x-request-id": "cancel-ttft-1" } })
          .catch(() => null);
        expect(await eventually(() => g.mock.requests.length > 0 && g.mock.requests.at(-1)!.aborted === false, 3_000)).toBe(true);
        ac.abort();
        await pending;
        expect(await eventually(() => g.mock.requests.at(-1)?.aborted === true, 3_000)).toBe(true);
        expect(await recordOf("cancel-ttft-1")).toMatchObject({ errorCode: "cancelled", statusCode: 499 });
        g.mock.reset();
      });

      test("a non-streaming call whose client disconnects aborts its upstream request and is recorded as cancelled", async () => {
        g.mock.setScript({ provider: "alpha" }, { kind: "hang" });
        const ac = new AbortController();
        const pending = g.s
          .fetch("/v1/chat/completions", {
            method: "POST",
            body: JSON.stringify({ model: "acme/openai-only", messages: [{ role: "user", content: "x" }] }),
            signal: ac.signal,
            headers: { "x-request-id": "cancel-json-1" },
          })
          .catch(() => null);
        expect(await eventually(() => g.mock.requests.length > 0 && g.mock.requests.at(-1)!.aborted === false, 3_000)).toBe(true);
        const left = performance.now();
        ac.abort();
        await pending;
        expect(await eventually(() => g.mock.requests.at(-1)?.aborted === true, 3_000)).toBe(true);
        // Because the client left, not because the attempt's 2 s timeout (test gateway config) ran out.
        expect(performance.now() - left).toBeLessThan(1_500);
        expect(await recordOf("cancel-json-1")).toMatchObject({ errorCode: "cancelled", statusCode: 499 });
        g.mock.reset();
      });

      test("chunks leave as they arrive, with SSE keep-alive comments during long silences and no id: lines", async () => {
        g.mock.setScript({ provider: "alpha" }, { kind: "reply", text: "slow answer", gapMs: 350 });
        const r = await g.s.fetch("/v1/chat/completions", { method: "POST", body: body() });
        const reader = r.body!.getReader();
        const dec = new TextDecoder();
        const arrivals: { at: number; text: string }[] = [];
        const t0 = performance.now();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          arrivals.push({ at: performance.now() - t0, text: dec.decode(value) });
        }
        const all = arrivals.map((a) => a.text).join("");
        expect(all).toContain(": keep-alive\n\n");
        expect(all).not.toMatch(/^id:/m);
        // The first content chunk arrived long before the stream ended (not buffered to the end).
        const firstContent = arrivals.find((a) => a.text.includes('"content":"slow'));
        expect(firstContent).toBeDefined();
        expect(arrivals.at(-1)!.at - firstContent!.at).toBeGreaterThan(200);
        g.mock.reset();
      });

      test("a streamed answer carries the request id and the rate-limit headers set before the handler, with the SSE headers", async () => {
        g.mock.setScript({ provider: "alpha" }, { kind: "reply", text: "a b" });
        const r = await g.s.fetch("/v1/chat/completions", { method: "POST", body: body(), headers: { "x-request-id": "headers-1" } });
        expect(r.status).toBe(200);
        expect(r.headers.get("x-request-id")).toBe("headers-1");
        expect(r.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
        expect(r.headers.get("cache-control")).toBe("no-cache");
        expect(Number(r.headers.get("x-ratelimit-limit-requests"))).toBeGreaterThan(0);
        expect(r.headers.get("x-ratelimit-remaining-requests")).toMatch(/^\d+$/);
        expect(r.headers.get("x-ratelimit-reset-requests")).toMatch(/^\d{4}-\d\d-\d\dT/);
        expect(await r.text()).toContain("data: [DONE]");
        g.mock.reset();
      });

      test("non-ASCII content reaches the client intact (the encoders write SSE text, the sink encodes it as UTF-8)", async () => {
        const text = "héllo 🌍 日本語 naïve — ok";
        g.mock.setScript({ provider: "alpha" }, { kind: "reply", text });
        const r = await g.s.fetch("/v1/chat/completions", { method: "POST", body: body() });
        expect(r.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
        const bytes = new Uint8Array(await r.arrayBuffer());
        const sse = new TextDecoder("utf-8", { fatal: true }).decode(bytes); // throws on a malformed sequence
        let content = "";
        for (const line of sse.split("\n")) {
          if (!line.startsWith("data: {")) continue;
          const chunk = JSON.parse(line.slice(6)) as { choices: { delta: { content?: string } }[] };
          content += chunk.choices[0]?.delta.content ?? "";
        }
        expect(content).toBe(text);
        g.mock.reset();
      });

      test("a stream that keeps talking past stream_timeout_ms ends with provider_timeout (separate from the idle timeout)", async () => {
        const alpha = g.s.deps.catalog.providers.get("alpha")! as { streamTimeoutMs: number };
        const saved = alpha.streamTimeoutMs;
        alpha.streamTimeoutMs = 300;
        try {
          g.mock.setScript({ provider: "alpha" }, { kind: "reply", text: "a b c d e f g h i j k l", gapMs: 60 });
          const r = await g.s.fetch("/v1/chat/completions", { method: "POST", body: body() });
          const text = await r.text();
          expect(text).toContain("exceeded its total time limit");
          expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
        } finally {
          alpha.streamTimeoutMs = saved;
          g.mock.reset();
        }
      });
    });
  });
}
