// Issue 53 part 3: Anthropic's dated (`claude-sonnet-4-5-20250929`) and undated (`claude-sonnet-4-5`) model
// IDs resolve as aliases of the same built-in model.
import { describe, expect, test } from "bun:test";
import { buildCatalog } from "../../../src/catalog/build";
import type { FileConfig } from "../../../src/config/schema";

const catalog = buildCatalog({ file: {}, credentialEnv: {} });
const idOf = (name: string) => catalog.resolve(name)?.id;

describe("Anthropic's dated and undated model IDs resolve to the same built-in model", () => {
  test("the published snapshot IDs are aliases in the built-in data", () => {
    expect(catalog.models.get("anthropic/claude-sonnet-4-5")!.aliases).toContain("claude-sonnet-4-5-20250929");
    expect(catalog.models.get("anthropic/claude-haiku-4-5")!.aliases).toContain("claude-haiku-4-5-20251001");
    for (const name of ["claude-sonnet-4-5", "claude-sonnet-4-5-20250929", "claude-sonnet-4.5", "anthropic/claude-sonnet-4-5"]) {
      expect(idOf(name)).toBe("anthropic/claude-sonnet-4-5");
    }
    expect(idOf("claude-haiku-4-5-20251001")).toBe("anthropic/claude-haiku-4-5");
  });

  test("any YYYYMMDD snapshot of a catalog Anthropic model resolves to it (Anthropic's undated ID names the current snapshot)", () => {
    for (const m of [...catalog.models.values()].filter((x) => x.author === "anthropic")) {
      const undated = m.id.slice("anthropic/".length);
      expect(idOf(undated)).toBe(m.id);
      expect(idOf(`${undated}-20261105`)).toBe(m.id);
      expect(idOf(`anthropic/${undated}-20261105`)).toBe(m.id);
    }
  });

  test("the dated-snapshot rule is Anthropic's only: other vendors' dated IDs stay unknown", () => {
    expect(idOf("gpt-5")).toBe("openai/gpt-5");
    expect(idOf("gpt-5-20250807")).toBeUndefined();
    expect(idOf("claude-sonnet-4-5-2025")).toBeUndefined();
    expect(idOf("claude-nonexistent-20250929")).toBeUndefined();
  });

  test("a name the index holds exactly wins over the dated-snapshot rule", () => {
    const file: FileConfig = {
      models: {
        "acme/pinned": {
          aliases: ["claude-sonnet-4-5-20990101"],
          routes: [{ provider: "anthropic", provider_model_id: "claude-sonnet-4-5-20990101", input_price: 1, output_price: 1 }],
        },
      },
    };
    const withPin = buildCatalog({ file, credentialEnv: {} });
    expect(withPin.resolve("claude-sonnet-4-5-20990101")?.id).toBe("acme/pinned");
    expect(withPin.resolve("claude-sonnet-4-5-20990102")?.id).toBe("anthropic/claude-sonnet-4-5");
  });
});
