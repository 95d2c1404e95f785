// The config file's `responses` section: the Responses store's switch, expiry and size bound.
import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../../src/config/load";
import { writeTempConfig } from "../../support/server";

const HOUR = 3_600_000;
const withFile = (file: unknown) => loadConfig({ DATABASE_URL: "sqlite::memory:", SWITCHYARD_CONFIG: writeTempConfig(file) });

describe("responses (the Responses store)", () => {
  test("on by default, 30 days, 4 MiB", () => {
    expect(loadConfig({ DATABASE_URL: "sqlite::memory:" }).responsesStore).toEqual({
      enabled: true,
      ttlMs: 720 * HOUR,
      maxBytes: 4 * 1024 * 1024,
    });
  });

  test("the file sets each key; store false turns it off", () => {
    expect(withFile({ responses: { store: false } }).responsesStore.enabled).toBe(false);
    expect(withFile({ responses: { store: true, store_ttl_hours: 1.5, store_max_bytes: 2048 } }).responsesStore).toEqual({
      enabled: true,
      ttlMs: 1.5 * HOUR,
      maxBytes: 2048,
    });
  });

  test("bad values and unknown keys are refused, naming the field", () => {
    for (const [bad, field] of [
      [{ store: "no" }, "store"],
      [{ store_ttl_hours: 0 }, "store_ttl_hours"],
      [{ store_ttl_hours: 8761 }, "store_ttl_hours"],
      [{ store_max_bytes: 10 }, "store_max_bytes"],
      [{ store_max_bytes: 1.5e3 + 0.5 }, "store_max_bytes"],
      [{ keep: true }, "responses"],
    ] as const) {
      expect(() => withFile({ responses: bad })).toThrow(ConfigError);
      expect(() => withFile({ responses: bad })).toThrow(new RegExp(field));
    }
  });
});
