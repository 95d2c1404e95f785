// Issue 53 part 3: GET /v1/models in Anthropic's list shape (anthropic-views.ts), over the built-in catalog.
import { describe, expect, test } from "bun:test";
import { anthropicModels, anthropicPage, renderAnthropicModel } from "../../../src/catalog/anthropic-views";
import { buildCatalog } from "../../../src/catalog/build";

const catalog = buildCatalog({ file: {}, credentialEnv: {} });
const everyProvider = { isRoutable: () => true };
const listed = anthropicModels(catalog, everyProvider);
const ids = listed.map((l) => l.view.id);
const page = (q: Parameters<typeof anthropicPage>[1]) => {
  const r = anthropicPage(listed, q, catalog.resolve);
  if (!r.ok) throw new Error(r.message);
  return r.list;
};

describe("Anthropic model list: shape and order", () => {
  test("items are Anthropic ModelInfo objects: Anthropic models under Anthropic's own IDs, others under canonical IDs", () => {
    const sonnet = listed.find((l) => l.model.id === "anthropic/claude-sonnet-4-5")!.view;
    expect(sonnet).toEqual({
      type: "model",
      id: "claude-sonnet-4-5",
      display_name: sonnet.display_name,
      created_at: "2025-09-29T00:00:00Z",
      max_input_tokens: sonnet.max_input_tokens,
      max_tokens: sonnet.max_tokens,
      line: "sonnet",
      lifecycle: "active",
      deprecated_at: null,
      retires_at: null,
      capabilities: null,
    });
    expect(sonnet.max_input_tokens).toBeGreaterThan(sonnet.max_tokens);
    expect(ids).toContain("openai/gpt-5");
    expect(ids.filter((id) => id.startsWith("claude-")).length).toBeGreaterThanOrEqual(5);
    expect(listed.find((l) => l.view.id === "openai/gpt-5")!.view.line).toBeNull();
  });

  test("newest first, as Anthropic lists its models; created_at is RFC 3339 without fractional seconds", () => {
    const times = listed.map((l) => Date.parse(l.view.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    for (const l of listed) expect(l.view.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00Z$/);
  });

  test("a model with no routable route is not listed and has no view", () => {
    const onlyOpenAI = { isRoutable: (p: string) => p === "openai" };
    const model = catalog.resolve("claude-sonnet-4-5")!;
    expect(renderAnthropicModel(model, onlyOpenAI)).toBeUndefined();
    expect(anthropicModels(catalog, onlyOpenAI).every((l) => l.model.routes.some((r) => r.provider === "openai"))).toBe(true);
  });
});

describe("Anthropic model list: paging by limit, after_id and before_id", () => {
  test("limit defaults to 20; has_more, first_id and last_id describe the page", () => {
    expect(listed.length).toBeGreaterThan(20);
    const first = page({});
    expect(first.data.map((m) => m.id)).toEqual(ids.slice(0, 20));
    expect(first).toMatchObject({ has_more: true, first_id: ids[0], last_id: ids[19] });
    const all = page({ limit: "1000" });
    expect(all.data).toHaveLength(listed.length);
    expect(all.has_more).toBe(false);
  });

  test("after_id pages forward to the end, and before_id pages back to the same pages", () => {
    const seen: string[] = [];
    let p = page({ limit: "7" });
    const pages = [p];
    seen.push(...p.data.map((m) => m.id));
    while (p.has_more) {
      p = page({ limit: "7", after_id: p.last_id! });
      pages.push(p);
      seen.push(...p.data.map((m) => m.id));
    }
    expect(seen).toEqual(ids);
    const back = page({ limit: "7", before_id: pages[2]!.first_id! });
    expect(back.data).toEqual(pages[1]!.data);
    expect(back.has_more).toBe(true);
    const start = page({ limit: "7", before_id: pages[1]!.first_id! });
    expect(start.data).toEqual(pages[0]!.data);
    expect(start.has_more).toBe(false);
  });

  test("a cursor may be any name of a listed model (canonical ID, alias, dated snapshot ID)", () => {
    const at = ids.indexOf("claude-sonnet-4-5");
    for (const name of ["claude-sonnet-4-5", "anthropic/claude-sonnet-4-5", "claude-sonnet-4.5", "claude-sonnet-4-5-20250929"]) {
      expect(page({ limit: "1", after_id: name }).data[0]!.id).toBe(ids[at + 1]!);
    }
  });

  test("past the end the page is empty: first_id and last_id are null, has_more false", () => {
    expect(page({ after_id: ids.at(-1)! })).toEqual({ data: [], has_more: false, first_id: null, last_id: null });
    expect(page({ before_id: ids[0]! })).toEqual({ data: [], has_more: false, first_id: null, last_id: null });
  });

  test("a limit outside 1–1000 or not an integer, both cursors at once, or an unknown cursor is refused naming the parameter", () => {
    for (const limit of ["0", "1001", "-1", "2.5", "ten", ""]) {
      expect(anthropicPage(listed, { limit }, catalog.resolve)).toMatchObject({ ok: false, param: "limit" });
    }
    expect(anthropicPage(listed, { after_id: ids[0], before_id: ids[3] }, catalog.resolve)).toMatchObject({
      ok: false,
      param: "before_id",
    });
    expect(anthropicPage(listed, { after_id: "no-such-model" }, catalog.resolve)).toMatchObject({ ok: false, param: "after_id" });
    expect(anthropicPage(listed, { before_id: "no-such-model" }, catalog.resolve)).toMatchObject({ ok: false, param: "before_id" });
  });
});
