// The routing bench's simulation is deterministic for a seed (same seed, same requests, same table) and
// actually drives the router: a short ttft run with a mid-run change serves every request, mostly on the
// oracle's route, and another seed meets another world.
import { expect, test } from "bun:test";
import { score } from "../../../bench/routing/metrics";
import { summaryTable, writeBlock, BEGIN, END } from "../../../bench/routing/report";
import { SCENARIOS, type Scenario } from "../../../bench/routing/scenarios";
import { simulate, type RequestRecord } from "../../../bench/routing/sim";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ttft = SCENARIOS.find((s) => s.name === "ttft")!;
const short: Scenario = { ...ttft, warmup: 50, requests: 250, changes: [{ provider: "oak", atRequest: 150, ttftMs: 650 }] };

// Everything but the planner's CPU time, which is measured, not simulated.
const trace = (records: RequestRecord[]) => records.map(({ planUs: _cpu, ...rest }) => rest);

test("the same seed gives the same requests and the same table", () => {
  const a = simulate(short, { seed: 11 });
  const b = simulate(short, { seed: 11 });
  expect(trace(a)).toEqual(trace(b));
  expect(summaryTable([score(short, a)], false)).toBe(summaryTable([score(short, b)], false));
});

test("another seed meets another world", () => {
  const a = simulate(short, { seed: 11 });
  const c = simulate(short, { seed: 12 });
  expect(trace(a)).not.toEqual(trace(c));
});

test("a short run serves every request through the real planner and scores it against the oracle", () => {
  const records = simulate(short, { seed: 11 });
  expect(records).toHaveLength(300);
  const m = score(short, records);
  expect(m.success).toBe(1);
  expect(m.overCeiling).toBe(0);
  expect(m.onOracle).toBeGreaterThan(0.5);
  // The oracle's route has the best true score, so the served routes' can only come close to it.
  expect(m.scoreRatio!).toBeGreaterThan(0.5);
  expect(m.scoreRatio!).toBeLessThanOrEqual(1);
  expect(m.switches).toHaveLength(1);
  // Before the change the oracle is the fastest route; after it, the next fastest.
  expect(records[149]!.oracle).toBe("oak");
  expect(records[150]!.oracle).toBe("pine");
});

test("the benchmark document's block is replaced between its markers only, and appended to the Benchmark section when absent", () => {
  const dir = mkdtempSync(join(tmpdir(), "routing-bench-"));
  const path = join(dir, "README.md");
  writeFileSync(path, "# X\n\n## Benchmark\n\ntext\n\n## Later\n\nmore\n");
  writeBlock(path, `${BEGIN}\none\n${END}`);
  expect(readFileSync(path, "utf8")).toBe(`# X\n\n## Benchmark\n\ntext\n\n${BEGIN}\none\n${END}\n\n## Later\n\nmore\n`);
  writeBlock(path, `${BEGIN}\ntwo\n${END}`);
  expect(readFileSync(path, "utf8")).toBe(`# X\n\n## Benchmark\n\ntext\n\n${BEGIN}\ntwo\n${END}\n\n## Later\n\nmore\n`);
});
