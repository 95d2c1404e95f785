import { describe, expect, test } from "bun:test";
import { UpstreamAbort } from "../../../src/platform/upstream-abort";

describe("UpstreamAbort", () => {
  test("abort runs the hooked callback once with the reason, and later aborts change nothing", () => {
    const ua = new UpstreamAbort();
    const seen: unknown[] = [];
    ua.onAbort((r) => seen.push(r));
    const reason = new DOMException("timeout", "TimeoutError");
    ua.abort(reason);
    ua.abort(new Error("second"));
    expect(seen).toEqual([reason]);
    expect(ua.aborted).toBe(true);
    expect(ua.reason).toBe(reason);
  });

  test("a detached callback is not run", () => {
    const ua = new UpstreamAbort();
    let ran = false;
    ua.onAbort(() => (ran = true));
    ua.onAbort(null);
    ua.abort();
    expect(ran).toBe(false);
    expect((ua.reason as DOMException).name).toBe("AbortError");
  });

  test("its signal follows it, whether asked for before or after the abort", () => {
    const before = new UpstreamAbort();
    const signal = before.signal;
    expect(signal.aborted).toBe(false);
    before.abort("why");
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe("why");
    const after = new UpstreamAbort();
    after.abort("late");
    expect(after.signal.aborted).toBe(true);
    expect(after.signal.reason).toBe("late");
  });
});
