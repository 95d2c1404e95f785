// Issue 53 part 5: /v1/models' `created` is the dataset's release date, else the day the model entered the
// catalog (each pick's `added`), never 0.
import { describe, expect, test } from "bun:test";
import { PICKS } from "../../../scripts/catalog-picks";
import { buildCatalog } from "../../../src/catalog/build";
import { BUILTIN_DATA, parseBuiltinData } from "../../../src/catalog/builtin-data";
import { renderModelList } from "../../../src/catalog/views";

const data = parseBuiltinData(BUILTIN_DATA);
const catalog = buildCatalog({ file: {}, credentialEnv: {} });
const unix = (date: string) => Date.parse(`${date}T00:00:00Z`) / 1000;

describe("created: the dataset's release date, else the day the model entered the catalog", () => {
  test("no built-in model is listed with created 0", () => {
    const list = renderModelList(catalog, { isRoutable: () => true });
    expect(list.data.length).toBe(data.models.length);
    for (const m of list.data) expect(m.created).toBeGreaterThan(unix("2020-01-01"));
  });

  test("a dated model keeps its release date; an undated one takes the day it entered the pick list", () => {
    let undated = 0;
    for (const m of data.models) {
      const created = catalog.models.get(m.id)!.created;
      if (m.release_date) expect(created).toBe(unix(m.release_date));
      else {
        undated++;
        expect(created).toBe(unix(m.added));
      }
    }
    expect(undated).toBeGreaterThan(0);
    const raw = structuredClone(data);
    raw.models[0] = { ...raw.models[0]!, release_date: null, added: "2026-02-03" };
    expect(buildCatalog({ file: {}, credentialEnv: {}, builtin: raw }).models.get(raw.models[0].id)!.created).toBe(unix("2026-02-03"));
  });

  test("every pick carries the day it was added, and the generated data holds it", () => {
    const byId = new Map(data.models.map((m) => [m.id, m]));
    for (const pick of PICKS) {
      expect(pick.added).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(byId.get(pick.id)?.added).toBe(pick.added);
    }
  });

  test("Mistral's YYMM-versioned IDs are dated by their version (mistral-large-2512 → 2025-12-01)", () => {
    expect(data.models.find((m) => m.id === "mistral/mistral-large-2512")!.release_date).toBe("2025-12-01");
    expect(data.models.find((m) => m.id === "mistral/mistral-small-2603")!.release_date).toBe("2026-03-01");
  });

  test("a data file without a model's added date is refused naming the field", () => {
    const raw = structuredClone(data) as unknown as { models: Record<string, unknown>[] };
    delete raw.models[0]!.added;
    expect(() => parseBuiltinData(raw)).toThrow(/\/models\/0\/added/);
  });
});
