// `response_route_ttl_hours`: how long the route of a Responses ID is remembered for follow-ups.
import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../../src/config/load";
import { writeTempConfig } from "../../support/server";

const HOUR = 3_600_000;
const withFile = (file: unknown) => loadConfig({ DATABASE_URL: "sqlite::memory:", SWITCHYARD_CONFIG: writeTempConfig(file) });

describe("response_route_ttl_hours", () => {
  test("defaults to 30 days, how long OpenAI keeps a stored response", () => {
    expect(loadConfig({ DATABASE_URL: "sqlite::memory:" }).responseRouteTtlMs).toBe(720 * HOUR);
  });

  test("the config file sets it in hours, fractions included", () => {
    expect(withFile({ response_route_ttl_hours: 2 }).responseRouteTtlMs).toBe(2 * HOUR);
    expect(withFile({ response_route_ttl_hours: 0.5 }).responseRouteTtlMs).toBe(HOUR / 2);
  });

  test("zero, negative and more than a year are refused, naming the field", () => {
    for (const bad of [0, -1, 8761, "24"]) {
      expect(() => withFile({ response_route_ttl_hours: bad })).toThrow(ConfigError);
      expect(() => withFile({ response_route_ttl_hours: bad })).toThrow(/response_route_ttl_hours/);
    }
  });
});
