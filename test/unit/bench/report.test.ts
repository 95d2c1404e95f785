// The bench's table: each dialect's stream rows sit beside the chat row of their concurrency, their ratio
// cell names the chat row's ratio as the figure to stay under; the README is rewritten only between markers.
import { expect, test } from "bun:test";
import { renderMarkdown, renderTable, updateReadme, type Results, type StreamTargetResult } from "../../../bench/report";
import type { TargetName } from "../../../bench/load";
import type { StreamKind } from "../../../bench/stream-kinds";

function stream(cpuUs: number | null, perRound: number[]): StreamTargetResult {
  return {
    streams: 10,
    complete: 10,
    ttfbP50: 21,
    ttfbP99: 25,
    totalP50: 120,
    totalP99: 130,
    cpuUs,
    cpuTicks: null,
    cpuUsPerRound: perRound,
  };
}

function load(concurrency: number, kind: StreamKind | undefined, switchyardUs: number): Results["streams"][number] {
  const targets: Record<TargetName, StreamTargetResult> = {
    direct: stream(null, []),
    proxy: stream(400, [400, 400]),
    minimal: stream(500, [500, 500]),
    switchyard: stream(switchyardUs, [switchyardUs * 0.9, switchyardUs * 1.1]),
  };
  return { concurrency, ...(kind ? { kind } : {}), targets, stealPercent: 1 };
}

const results = (streams: Results["streams"]): Results => ({
  date: "2026-12-02T01:00:00.000Z",
  mode: "quick",
  machine: { nproc: 2, cpu: "test CPU", bun: "1.x", pinning: "none", loadGenerator: "test" },
  settings: { rounds: 2, streamChunks: 20, ttftMs: 20, gapMs: 5 },
  json: [],
  streams,
  memory: { idleMb: 50, lifetimePeakMb: 90, peak128Mb: 80, afterLoadMb: 60, afterEachRoundMb: [60, 61] },
  startup: { buildMs: 1000, freshDbMs: [100], existingDbMs: [90] },
  recordWriter: null,
  failures: [],
});

test("Messages and Responses rows follow the chat row of their concurrency, their target the chat row's ratio", () => {
  const table = renderTable(results([load(8, "chat", 500), load(8, "messages", 600), load(8, "responses", 520), load(32, "chat", 480)]));
  const labels = table.split("\n").map((l) => l.split(" | ")[0]!.replace(/^\| /, ""));
  const heads = labels.filter((l) => l.endsWith("TTFB p50 / p99 (ms)"));
  expect(heads).toEqual([
    "streaming, 8 streams: TTFB p50 / p99 (ms)",
    "Messages stream → anthropic, 8 streams: TTFB p50 / p99 (ms)",
    "Responses stream → responses, 8 streams: TTFB p50 / p99 (ms)",
    "streaming, 32 streams: TTFB p50 / p99 (ms)",
  ]);
  const cpuRows = table.split("\n").filter((l) => l.includes("CPU µs / stream"));
  expect(cpuRows[0]).toContain("**1.25×** (≤ 1.5×");
  expect(cpuRows[1]).toContain("**1.50×** (≤ chat's 1.25×; rounds 1.35–1.65; steal 1.0 %)");
  expect(cpuRows[2]).toContain("**1.30×** (≤ chat's 1.25×");
});

test("a results file from before the dialects (no kind) renders its rows as chat", () => {
  const table = renderTable(results([load(8, undefined, 500)]));
  expect(table).toContain("| streaming, 8 streams: TTFB p50 / p99 (ms) |");
  expect(table).not.toContain("Messages stream");
});

test("the README's table is replaced between its markers and nothing else moves", () => {
  const md = renderMarkdown(results([load(8, "chat", 500), load(8, "messages", 600)]));
  const readme = "# Switchyard\n\nintro\n\n<!-- bench:begin -->\nold table\n<!-- bench:end -->\n\n## After\n";
  const out = updateReadme(readme, md);
  expect(out.startsWith("# Switchyard\n\nintro\n\n<!-- bench:begin -->\n")).toBe(true);
  expect(out.endsWith("<!-- bench:end -->\n\n## After\n")).toBe(true);
  expect(out).toContain("Messages stream → anthropic, 8 streams");
  expect(out).not.toContain("old table");
});
