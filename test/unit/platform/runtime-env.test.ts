import { describe, expect, test } from "bun:test";
import {
  runtimeReexec,
  GC_TIMER_VAR,
  FETCH_MAX_REQUESTS,
  FETCH_MAX_VAR,
  PURGE_INTERVAL_MS,
  PURGE_INTERVAL_VAR,
  type ProcessView,
} from "../../../src/platform/tuning/runtime-env";

const view = (over: Partial<ProcessView> = {}): ProcessView => ({
  env: { PATH: "/usr/bin", PORT: "8080" },
  platform: "linux",
  execPath: "/usr/local/bin/switchyard",
  cmdline: () => ["switchyard", "serve", "--port", "8080", ""].join("\0"),
  checkEnviron: () => {},
  ...over,
});

describe("runtime settings (platform/tuning/runtime-env.ts)", () => {
  test("without the variables, the process is started again from its executable with the arguments as given and the variables added", () => {
    const plan = runtimeReexec(view());
    expect(plan).toEqual({
      file: "/usr/local/bin/switchyard",
      args: ["switchyard", "serve", "--port", "8080"],
      env: {
        PATH: "/usr/bin",
        PORT: "8080",
        [PURGE_INTERVAL_VAR]: PURGE_INTERVAL_MS,
        [GC_TIMER_VAR]: "1",
        [FETCH_MAX_VAR]: FETCH_MAX_REQUESTS,
      },
    });
    expect(PURGE_INTERVAL_MS).toBe("1000");
    // Bun refuses a larger value and then keeps its default of 256.
    expect(FETCH_MAX_REQUESTS).toBe("65535");
  });

  test("an operator's own values (even the defaults) are kept: no second start when all three are set", () => {
    expect(runtimeReexec(view({ env: { [PURGE_INTERVAL_VAR]: "100", [GC_TIMER_VAR]: "0", [FETCH_MAX_VAR]: "256" } }))).toBeNull();
    expect(runtimeReexec(view({ env: { [PURGE_INTERVAL_VAR]: "", [GC_TIMER_VAR]: "", [FETCH_MAX_VAR]: "" } }))).toBeNull();
  });

  test("with some set by the operator, only the others are added and the operator's values kept", () => {
    expect(runtimeReexec(view({ env: { [PURGE_INTERVAL_VAR]: "100" } }))?.env).toEqual({
      [PURGE_INTERVAL_VAR]: "100",
      [GC_TIMER_VAR]: "1",
      [FETCH_MAX_VAR]: FETCH_MAX_REQUESTS,
    });
    expect(runtimeReexec(view({ env: { [GC_TIMER_VAR]: "0", [FETCH_MAX_VAR]: "1000" } }))?.env).toEqual({
      [GC_TIMER_VAR]: "0",
      [FETCH_MAX_VAR]: "1000",
      [PURGE_INTERVAL_VAR]: PURGE_INTERVAL_MS,
    });
  });

  test("an argument that is empty or holds spaces survives the round trip through /proc/self/cmdline", () => {
    const plan = runtimeReexec(view({ cmdline: () => ["bun", "/srv/my app/src/main.ts", "serve", "--name", "", ""].join("\0") }));
    expect(plan?.args).toEqual(["bun", "/srv/my app/src/main.ts", "serve", "--name", ""]);
  });

  test("variables the environment lists as undefined are left out rather than passed as the text 'undefined'", () => {
    const plan = runtimeReexec(view({ env: { PATH: "/bin", GONE: undefined } }));
    expect(plan?.env).toEqual({
      PATH: "/bin",
      [PURGE_INTERVAL_VAR]: PURGE_INTERVAL_MS,
      [GC_TIMER_VAR]: "1",
      [FETCH_MAX_VAR]: FETCH_MAX_REQUESTS,
    });
  });

  test("off Linux, or when the command line or environment cannot be read, is empty or is not UTF-8, the process runs on as it is", () => {
    expect(runtimeReexec(view({ platform: "darwin" }))).toBeNull();
    expect(runtimeReexec(view({ platform: "win32" }))).toBeNull();
    const unreadable = () => {
      throw new Error("ENOENT: /proc is not mounted");
    };
    expect(runtimeReexec(view({ cmdline: unreadable }))).toBeNull();
    const notUtf8 = () => {
      throw new TypeError("The encoded data was not valid for encoding utf-8");
    };
    expect(runtimeReexec(view({ cmdline: notUtf8 }))).toBeNull();
    expect(runtimeReexec(view({ checkEnviron: notUtf8 }))).toBeNull();
    expect(runtimeReexec(view({ cmdline: () => "" }))).toBeNull();
  });
});
