// SWITCHYARD_TUNING: parsed once in config (off overrides the single knobs and names the ones it overrides),
// and createTuning hands out the plain pieces when it is off: Bun's fetch, no memory governor, no hot routes.
import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig, tuningSwitch } from "../../../src/config/load";
import { createTuning } from "../../../src/platform/tuning/tuning";
import { createLogger } from "../../../src/platform/logger";

const DB = { DATABASE_URL: "sqlite::memory:" };

describe("the tuning switch in the configuration", () => {
  test("on by default, with the knobs as given", () => {
    const c = loadConfig({ ...DB, SWITCHYARD_HEAP_LIMIT_MB: "8" });
    expect(c.tuning).toBe("on");
    expect(c.heapLimitMb).toBe(8);
    expect(c.upstreamClient).toBe("sockets");
    expect(c.tuningIgnored).toEqual([]);
  });

  test("off overrides the knobs (no governor, fetch) and names those that were set", () => {
    const c = loadConfig({ ...DB, SWITCHYARD_TUNING: "off", SWITCHYARD_UPSTREAM_CLIENT: "sockets" });
    expect(c.tuning).toBe("off");
    expect(c.heapLimitMb).toBe(0);
    expect(c.upstreamClient).toBe("fetch");
    expect(c.tuningIgnored).toEqual(["SWITCHYARD_UPSTREAM_CLIENT"]);
    expect(loadConfig({ ...DB }, { SWITCHYARD_TUNING: "off", SWITCHYARD_HEAP_LIMIT_MB: "3" }).tuningIgnored).toEqual([
      "SWITCHYARD_HEAP_LIMIT_MB",
    ]);
  });

  test("a bad value is refused with its name, and a bad knob still is when tuning is off", () => {
    expect(() => loadConfig({ ...DB, SWITCHYARD_TUNING: "fast" })).toThrow(
      new ConfigError(`SWITCHYARD_TUNING must be 'on' (the speed and memory tuning, docs/tuning.md) or 'off' (plain Bun), got "fast"`),
    );
    expect(() => loadConfig({ ...DB, SWITCHYARD_TUNING: "off", SWITCHYARD_HEAP_LIMIT_MB: "lots" })).toThrow(
      /SWITCHYARD_HEAP_LIMIT_MB must be/,
    );
  });

  test("the entry's early reading agrees with loadConfig, the flag before the variable", () => {
    expect(tuningSwitch({})).toBe("on");
    expect(tuningSwitch({ SWITCHYARD_TUNING: "" })).toBe("on");
    expect(tuningSwitch({ SWITCHYARD_TUNING: "off" })).toBe("off");
    expect(tuningSwitch({ SWITCHYARD_TUNING: "off" }, { SWITCHYARD_TUNING: "on" })).toBe("on");
    expect(tuningSwitch({ SWITCHYARD_TUNING: "OFF" })).toBeUndefined();
  });
});

describe("createTuning", () => {
  const settings = {
    tuningIgnored: [],
    heapLimitMb: 3,
    upstreamClient: "sockets" as const,
    fetchMaxRequests: { value: 65_535, set: true },
  };

  test("on: the configured client and, once started, the memory governor", () => {
    const lines: string[] = [];
    const t = createTuning(
      { ...settings, tuning: "on" },
      createLogger("info", (l) => lines.push(l)),
    );
    try {
      expect(t.upstream.kind).toBe("sockets");
      expect(t.hotRoutes).toBe(true);
      expect(t.stats()).toBeUndefined();
      t.start();
      expect(t.stats()).toMatchObject({ collections: 0 });
      expect(lines).toEqual([]);
    } finally {
      t.stop();
    }
  });

  test("off: Bun's fetch whatever the knobs say, no governor, and one line at start naming what it ignored", () => {
    const lines: string[] = [];
    const t = createTuning(
      { ...settings, tuning: "off", tuningIgnored: ["SWITCHYARD_UPSTREAM_CLIENT"] },
      createLogger("info", (l) => lines.push(l)),
    );
    try {
      expect(t.upstream.kind).toBe("fetch");
      expect(t.hotRoutes).toBe(false);
      t.start();
      expect(t.stats()).toBeUndefined();
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({ level: "info", ignored: "SWITCHYARD_UPSTREAM_CLIENT" });
      expect(JSON.parse(lines[0]!).msg).toContain("SWITCHYARD_TUNING=off");
    } finally {
      t.stop();
    }
  });

  test("fetch with Bun's default limit of requests at once: one warning naming the variable; none once it is set", () => {
    for (const [cap, warned] of [
      [{ value: 256, set: false }, 1],
      [{ value: 1000, set: true }, 0],
    ] as const) {
      const lines: string[] = [];
      const t = createTuning(
        { ...settings, tuning: "on", upstreamClient: "fetch", fetchMaxRequests: cap },
        createLogger("info", (l) => lines.push(l)),
      );
      try {
        t.start();
        const said = lines
          .map((l) => JSON.parse(l) as { level: string; msg: string })
          .filter((l) => l.msg.includes("BUN_CONFIG_MAX_HTTP_REQUESTS"));
        expect(said).toHaveLength(warned);
        if (warned) expect(said[0]).toMatchObject({ level: "warn" });
        if (warned) expect(said[0]!.msg).toContain("at most 256 upstream requests at once");
      } finally {
        t.stop();
      }
    }
  });
});
