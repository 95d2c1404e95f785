import { describe, expect, test } from "bun:test";
import { LiveMap } from "../../../src/management/live-map";

describe("LiveMap", () => {
  test("reload replaces the contents wholesale", async () => {
    const m = new LiveMap<number>();
    m.set("a", 1);
    await m.reload(async () => new Map([["b", 2]]));
    expect(m.get("a")).toBeUndefined();
    expect(m.get("b")).toBe(2);
  });

  test("a local write made while a reload runs survives that reload's older snapshot", async () => {
    const m = new LiveMap<string>();
    let finish!: (v: Map<string, string>) => void;
    const reloading = m.reload(() => new Promise((r) => (finish = r)));
    m.set("ws1", "new");
    m.set("ws2", undefined);
    finish(
      new Map([
        ["ws1", "stale"],
        ["ws2", "stale"],
        ["ws3", "fresh"],
      ]),
    );
    await reloading;
    expect(m.get("ws1")).toBe("new");
    expect(m.get("ws2")).toBeUndefined();
    expect(m.get("ws3")).toBe("fresh");
    // The next reload is authoritative again.
    await m.reload(async () => new Map([["ws1", "db"]]));
    expect(m.get("ws1")).toBe("db");
  });
});
