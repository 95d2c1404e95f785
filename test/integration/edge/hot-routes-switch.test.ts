// The hot routes (http/hot-routes.ts) are speed only: with tuning on the listening server serves the
// inference POSTs from Bun's route table, with it off through Elysia, and a client cannot tell which from
// the answers (status, body, headers), refusals and rate limits included.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../../src/app";
import { generateApiKey } from "../../../src/auth/key-format";
import { startServer, type InProcessServer } from "../../support/server";

const servers: Partial<Record<"on" | "off", InProcessServer>> = {};
beforeAll(async () => {
  for (const tuning of ["on", "off"] as const) {
    servers[tuning] = await startServer({
      env: { SWITCHYARD_TUNING: tuning },
      configFile: { limits: { inference: { per_minute: 1000 } } },
      logLevel: "warn",
    });
  }
});
afterAll(async () => {
  await Promise.all(Object.values(servers).map((s) => s.stop()));
});

const ADMIN = "(admin)";
const VARYING = new Set(["date", "content-length", "x-ratelimit-reset-requests"]);
/** What a client sees of an answer, without what differs by instance (dates, the reset instant, IDs). */
async function seen(
  s: InProcessServer,
  path: string,
  init: { method?: string; key?: string | null; body?: string; headers?: Record<string, string> },
) {
  const key = init.key === ADMIN ? s.adminKey : init.key;
  const headers = { "x-request-id": "req-switch-test", ...(init.headers ?? {}) };
  const r = await s.fetch(path, { method: init.method ?? "POST", key: key ?? null, body: init.body, headers });
  const text = (await r.text()).replaceAll(s.workspaceId, "<ws>");
  const kept: [string, string][] = [];
  r.headers.forEach((v, k) => void (VARYING.has(k) || kept.push([k, v])));
  return { status: r.status, body: text, headers: Object.fromEntries(kept.sort(([a], [b]) => a.localeCompare(b))) };
}

const PATHS = ["/v1/chat/completions", "/v1/responses", "/v1/messages", "/v1/messages/count_tokens"];
const CASES: { name: string; key: string | null; body?: string; headers?: Record<string, string>; method?: string; query?: string }[] = [
  { name: "no key, malformed body", key: null, body: "{not json" },
  { name: "malformed key", key: "not-a-key", body: "{}" },
  { name: "a well-formed key nobody issued", key: generateApiKey(), body: "{}" },
  { name: "malformed JSON", key: ADMIN, body: "{not json" },
  { name: "a body its schema refuses", key: ADMIN, body: JSON.stringify({ model: 7 }) },
  {
    name: "an unknown model",
    key: ADMIN,
    body: JSON.stringify({ model: "nobody/none", messages: [{ role: "user", content: "hi" }], input: "hi", max_tokens: 8 }),
  },
  { name: "too deeply nested", key: ADMIN, body: `{"model":"x","a":${"[".repeat(200)}${"]".repeat(200)}}` },
  { name: "x-api-key (Messages' spelling)", key: null, headers: { "x-api-key": ADMIN }, body: JSON.stringify({ model: "nobody/none" }) },
  { name: "GET on a POST route", key: ADMIN, method: "GET" },
  { name: "NUL in a query parameter", key: ADMIN, query: "?x=a%00", body: JSON.stringify({ model: "nobody/none" }) },
  { name: "NUL in a query parameter's name", key: ADMIN, query: "?a%00b=1&a%00b=2", body: JSON.stringify({ model: "nobody/none" }) },
];

describe("the inference POSTs answer alike with and without the hot routes", () => {
  test("the hot routes are mounted only with tuning on", () => {
    expect(servers.on!.deps.tuning.hotRoutes).toBe(true);
    expect(servers.off!.deps.tuning.hotRoutes).toBe(false);
    expect(createApp(servers.on!.deps).config.serve?.routes).toBeDefined();
    expect(createApp(servers.off!.deps).config.serve?.routes).toBeUndefined();
  });

  for (const path of PATHS) {
    test(`${path}: refusals, errors and rate-limit headers`, async () => {
      for (const c of CASES) {
        const answers = [];
        for (const s of [servers.on!, servers.off!]) {
          const headers = Object.fromEntries(Object.entries(c.headers ?? {}).map(([k, v]) => [k, v === ADMIN ? s.adminKey : v]));
          answers.push(await seen(s, path + (c.query ?? ""), { ...c, headers }));
        }
        expect({ case: c.name, ...answers[1]! }).toEqual({ case: c.name, ...answers[0]! });
      }
    });
  }
});
