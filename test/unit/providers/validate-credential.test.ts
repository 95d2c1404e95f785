import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AdapterName } from "../../../src/catalog/types";
import { adapterFor } from "../../../src/providers/registry";
import { startMockUpstream, type MockUpstream } from "../../support/mock-upstream";

const ADAPTERS: AdapterName[] = ["openai", "anthropic", "gemini"];
const GOOD = "sk-good-0123456789";
let mock: MockUpstream;

beforeAll(async () => {
  mock = await startMockUpstream({ apiKeys: { good: GOOD, "good-anthropic": GOOD, "good-gemini": GOOD } });
});
afterAll(() => mock.stop());

const providerFor = (adapter: AdapterName, prefix: string) => (adapter === "openai" ? prefix : `${prefix}-${adapter}`);

describe("validateCredential", () => {
  for (const adapter of ADAPTERS) {
    test(`${adapter}: an accepted key is ok, sent in the provider's header to its models listing`, async () => {
      mock.reset();
      const result = await adapterFor(adapter).validateCredential(mock.baseUrl(adapter, providerFor(adapter, "good")), GOOD, 2000);
      expect(result).toEqual({ ok: true });
      const [req] = mock.requests;
      expect(req.route).toBe("models");
      expect(req.format).toBe(adapter);
      expect(JSON.stringify(req.headers)).toContain(GOOD);
    });

    test(`${adapter}: a rejected key is invalid`, async () => {
      const result = await adapterFor(adapter).validateCredential(
        mock.baseUrl(adapter, providerFor(adapter, "good")),
        "sk-wrong-0123456789",
        2000,
      );
      expect(result).toMatchObject({ ok: false, kind: "invalid" });
    });

    test(`${adapter}: a 5xx is unavailable`, async () => {
      mock.setScript({ provider: providerFor(adapter, "down"), route: "models" }, { kind: "error", status: 503 });
      const result = await adapterFor(adapter).validateCredential(mock.baseUrl(adapter, providerFor(adapter, "down")), GOOD, 2000);
      expect(result).toMatchObject({ ok: false, kind: "unavailable" });
    });

    test(`${adapter}: no answer within the timeout is unavailable`, async () => {
      mock.setScript({ provider: providerFor(adapter, "slow") }, { kind: "hang" });
      const started = Date.now();
      const result = await adapterFor(adapter).validateCredential(mock.baseUrl(adapter, providerFor(adapter, "slow")), GOOD, 100);
      expect(result).toEqual({ ok: false, kind: "unavailable", message: "Provider did not answer in time" });
      expect(Date.now() - started).toBeLessThan(1500);
    });
  }

  test("a redirect is not followed (the secret would go with it): unavailable, naming the status", async () => {
    const elsewhere = await startMockUpstream({ apiKeys: { good: GOOD } });
    const location = `${elsewhere.baseUrl("openai", "good")}/models`;
    mock.setScript({ provider: "moved", route: "models" }, { kind: "error", status: 308, headers: { location } });
    try {
      const result = await adapterFor("openai").validateCredential(mock.baseUrl("openai", "moved"), GOOD, 2000);
      expect(result).toEqual({ ok: false, kind: "unavailable", message: "Provider answered HTTP 308 during validation" });
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await elsewhere.stop();
    }
  });

  test("a refused connection is unavailable", async () => {
    const closed = await startMockUpstream();
    const url = closed.baseUrl("openai");
    await closed.stop();
    expect(await adapterFor("openai").validateCredential(url, GOOD, 1000)).toMatchObject({ ok: false, kind: "unavailable" });
  });

  test("uses the injected fetch", async () => {
    const calls: string[] = [];
    const fakeFetch = (async (input: string | URL | Request) => {
      calls.push(String(input));
      return new Response("{}", { status: 401 });
    }) as typeof fetch;
    expect(await adapterFor("anthropic").validateCredential("https://api.example.test/", GOOD, 1000, fakeFetch)).toMatchObject({
      ok: false,
      kind: "invalid",
    });
    expect(calls).toEqual(["https://api.example.test/v1/models"]);
  });
});
