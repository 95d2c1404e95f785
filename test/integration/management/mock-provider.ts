// A local OpenAI-compatible provider for BYOK validation: GET /v1/models answers by the key presented.
// Keys containing "-rejected-" get 401, "-down-" 503, "-hang-" wait until release() (or stop()),
// anything else 200 with a models list. Never a real provider.
export interface MockProvider {
  /** Base URL in the catalog's convention for openai adapters (includes /v1). */
  baseUrl: string;
  /** Validation calls seen so far. */
  calls(): number;
  /** Resolves once `n` calls have arrived (polls with a deadline). */
  waitForCalls(n: number, timeoutMs?: number): Promise<void>;
  release(): void;
  stop(): Promise<void>;
}

export function startMockProvider(): MockProvider {
  let seen = 0;
  let releaseAll: () => void = () => {};
  let gate = new Promise<void>((r) => (releaseAll = r));
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      if (req.method !== "GET" || url.pathname !== "/v1/models") return new Response("not found", { status: 404 });
      seen++;
      const key = (req.headers.get("authorization") ?? "").replace(/^Bearer /, "");
      if (key.includes("-rejected-")) {
        return Response.json({ error: { message: `Incorrect API key provided: ${key}`, type: "invalid_request_error" } }, { status: 401 });
      }
      if (key.includes("-down-")) return Response.json({ error: { message: `overloaded for ${key}` } }, { status: 503 });
      if (key.includes("-hang-")) await gate;
      return Response.json({ object: "list", data: [{ id: "chat-small-2026", object: "model", owned_by: "alpha" }] });
    },
  });
  return {
    baseUrl: `http://127.0.0.1:${server.port}/v1`,
    calls: () => seen,
    async waitForCalls(n, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (seen < n) {
        if (Date.now() > deadline) throw new Error(`mock provider: expected ${n} calls, saw ${seen}`);
        await Bun.sleep(5);
      }
    },
    release() {
      releaseAll();
      gate = new Promise<void>((r) => (releaseAll = r));
    },
    async stop() {
      releaseAll();
      await server.stop(true);
    },
  };
}
