import { describe, expect, test } from "bun:test";
import { fnKey, parseCallgrind } from "../../../bench/callgrind";

// A dump as callgrind writes it with name compression: "(id) name" defines an id, "(id)" refers to it.
const DUMP = `version: 1
creator: callgrind-3.19.0
events: Ir
ob=(1) /bin/bun.exe
fl=(1) ???
fn=(1) 0x0000000001d4a360
0x1d4a360 100
+3 20
cob=(2) ???
cfn=(2) 0x0000000007a00000
calls=2 0x7a00000
0x1d4a370 500
cfn=(1)
calls=1 0x1d4a360
0x1d4a380 7
ob=(2)
fn=(2)
0x7a00000 400
cob=(1)
cfn=(3) 0x0000000002000000
calls=5 0x2000000
0x7a00010 90
ob=(1)
fn=(3)
0x2000000 90

totals: 610
`;

describe("callgrind output", () => {
  const p = parseCallgrind(DUMP);
  const bunFn = fnKey({ object: "/bin/bun.exe", fn: "0x0000000001d4a360" });
  const jitFn = fnKey({ object: "???", fn: "0x0000000007a00000" });
  const nativeCallee = fnKey({ object: "/bin/bun.exe", fn: "0x0000000002000000" });

  test("a function's own cost is the sum of its cost lines, not of the calls it makes", () => {
    expect(p.self.get(bunFn)).toBe(120);
    expect(p.self.get(jitFn)).toBe(400);
    expect(p.self.get(nativeCallee)).toBe(90);
    expect(p.total).toBe(610);
  });

  test("a call's inclusive cost is charged to caller → callee, in the object cob= names (else the caller's)", () => {
    expect(p.calls.get(bunFn)?.get(jitFn)).toBe(500);
    expect(p.calls.get(bunFn)?.get(bunFn)).toBe(7); // no cob=: the caller's own object
    expect(p.calls.get(jitFn)?.get(nativeCallee)).toBe(90);
  });
});

describe("callgrind output with several events", () => {
  const DUMP2 = `events: Ir DLmr
ob=(1) /bin/bun.exe
fn=(1) f
0x10 100 3
+2 50
cfn=(2) g
calls=1 0x20
0x12 40 2
fn=(2)
0x20 40 2
`;

  test("an event is read from its own column, a trailing zero left out counting as 0", () => {
    const misses = parseCallgrind(DUMP2, "DLmr");
    expect(misses.self.get(fnKey({ object: "/bin/bun.exe", fn: "f" }))).toBe(3);
    expect(misses.calls.get(fnKey({ object: "/bin/bun.exe", fn: "f" }))?.get(fnKey({ object: "/bin/bun.exe", fn: "g" }))).toBe(2);
    expect(parseCallgrind(DUMP2).total).toBe(190);
    expect(() => parseCallgrind(DUMP2, "I1mr")).toThrow("no event I1mr");
  });
});
