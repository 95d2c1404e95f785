// count_tokens is rate limited like inference: the inference class, bucketed by the key whether it comes as
// Bearer or as x-api-key (Anthropic clients), in Anthropic's error shape past the limit.
import { describe, expect, test } from "bun:test";
import { startServer } from "../../support/server";

describe("POST /v1/messages/count_tokens is rate limited in the inference class", () => {
  test("a key's inference bucket pays for counts, whether the key comes as Bearer or as x-api-key", async () => {
    const s = await startServer({ configFile: { limits: { inference: { per_minute: 3 } } }, logLevel: "warn" });
    try {
      const body = JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
      const count = (headers: Record<string, string>, key: string | null) =>
        s.fetch("/v1/messages/count_tokens", { method: "POST", key, headers: { "content-type": "application/json", ...headers }, body });
      for (let i = 0; i < 3; i++) {
        const ok = await count({}, s.adminKey);
        expect(ok.status).toBe(200);
        expect(ok.headers.get("x-ratelimit-limit-requests")).toBe("3");
      }
      // The client address paid one token for the key's first (unread) call; x-api-key must hit the key's own bucket.
      const res = await count({ "x-api-key": s.adminKey }, null);
      expect(res.status).toBe(429);
      expect(res.headers.get("retry-after")).toBeTruthy();
      expect(((await res.json()) as { type: string; error: { type: string } }).error.type).toBe("rate_limit_error");
    } finally {
      await s.stop();
    }
  });
});
