// `byok_validation_timeout_ms`: how long adding a BYOK key waits for the provider's check of the secret.
import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../../src/config/load";
import { writeTempConfig } from "../../support/server";

const withFile = (file: unknown) => loadConfig({ DATABASE_URL: "sqlite::memory:", SWITCHYARD_CONFIG: writeTempConfig(file) });

describe("byok_validation_timeout_ms", () => {
  test("defaults to 10 s", () => {
    expect(loadConfig({ DATABASE_URL: "sqlite::memory:" }).byokValidationTimeoutMs).toBe(10_000);
    expect(withFile({}).byokValidationTimeoutMs).toBe(10_000);
  });

  test("the config file sets it in whole milliseconds, 100 to 120000", () => {
    expect(withFile({ byok_validation_timeout_ms: 100 }).byokValidationTimeoutMs).toBe(100);
    expect(withFile({ byok_validation_timeout_ms: 2_500 }).byokValidationTimeoutMs).toBe(2_500);
    expect(withFile({ byok_validation_timeout_ms: 120_000 }).byokValidationTimeoutMs).toBe(120_000);
  });

  test("out of range, fractional or not a number is refused, naming the field and the bound", () => {
    expect(() => withFile({ byok_validation_timeout_ms: 99 })).toThrow(
      /\/byok_validation_timeout_ms: Expected integer to be greater or equal to 100/,
    );
    expect(() => withFile({ byok_validation_timeout_ms: 120_001 })).toThrow(
      /\/byok_validation_timeout_ms: Expected integer to be less or equal to 120000/,
    );
    for (const bad of [0, -1, 1500.5, "5000", null]) {
      expect(() => withFile({ byok_validation_timeout_ms: bad })).toThrow(ConfigError);
      expect(() => withFile({ byok_validation_timeout_ms: bad })).toThrow(/byok_validation_timeout_ms/);
    }
  });
});
