// Benchmark results: the JSON shape written to bench/results/, and the one markdown table.
import type { TargetName } from "./load";
import type { SaturationResults } from "./saturation-report";
import { KINDS, type StreamKind } from "./stream-kinds";

export interface Machine {
  nproc: number;
  cpu: string;
  bun: string;
  pinning: string;
  loadGenerator: string;
  /**
   * Steal while the loads ran: the share of the machine's CPU time (/proc/stat) the hypervisor gave to other
   * guests. A busy host slows every target unevenly from round to round; a run with more than a few per
   * cent says so beside its figures.
   */
  stealPercent?: number | null;
}

export interface JsonTargetResult {
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
  /** CPU of the proxy process per request; null for direct (no process in between). */
  cpuUs: number | null;
  cpuTicks: number | null;
  /** The same figure per round, to show the spread. */
  cpuUsPerRound: number[];
}

export interface StreamTargetResult {
  streams: number;
  complete: number;
  ttfbP50: number;
  ttfbP99: number;
  totalP50: number;
  totalP99: number;
  cpuUs: number | null;
  cpuTicks: number | null;
  /** The same figure per round, to show the spread. */
  cpuUsPerRound: number[];
}

export interface Results {
  date: string;
  mode: "full" | "quick";
  machine: Machine;
  settings: Record<string, number | string>;
  /** Each load's rows, with the steal while that load's rounds ran (Machine.stealPercent, per load). */
  json: { concurrency: number; targets: Record<TargetName, JsonTargetResult>; stealPercent?: number | null }[];
  /** Stream loads in the table's order; `kind` is the client's dialect (stream-kinds.ts), chat when absent. */
  streams: { concurrency: number; kind?: StreamKind; targets: Record<TargetName, StreamTargetResult>; stealPercent?: number | null }[];
  memory: { idleMb: number; lifetimePeakMb: number; peak128Mb: number; afterLoadMb: number; afterEachRoundMb: number[] };
  startup: { buildMs: number; freshDbMs: number[]; existingDbMs: number[] };
  recordWriter: { records: number; complete: boolean; recordsPerSecond: number; recordsPerCpuSecond: number } | null;
  failures: string[];
  /** The saturation section (wrk), when the run included it. */
  saturation?: SaturationResults;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function median(values: number[]): number {
  return percentile(values, 50);
}

const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "—");
const ms = (n: number) => (Number.isFinite(n) ? (Math.abs(n) >= 100 ? n.toFixed(0) : n.toFixed(2)) : "—");
const signed = (n: number) => (Number.isFinite(n) ? `${n >= 0 ? "+" : ""}${ms(n)}` : "—");
const pair = (a: number, b: number) => `${ms(a)} / ${ms(b)}`;
const ratio = (a: number | null, b: number | null) => (a !== null && b !== null && b > 0 ? `${(a / b).toFixed(2)}×` : "—");
const mb = (n: number) => n.toFixed(1);

/** The ratio's range over the rounds (each round runs both targets back to back): how much the day's noise moves it. */
function roundSpread(a: number[], b: number[]): string {
  const per = a.map((x, i) => x / b[i]!).filter((x) => Number.isFinite(x));
  if (per.length < 2) return "";
  return `; rounds ${Math.min(...per).toFixed(2)}–${Math.max(...per).toFixed(2)}`;
}

/** The table's target columns, in order; the minimal JS proxy is a reference, not a target. */
const COLUMNS: TargetName[] = ["direct", "proxy", "minimal", "switchyard"];

export function renderTable(r: Results): string {
  const rows: string[][] = [];
  // One cell per target column, "—" where the figure does not apply (direct has no process between).
  const each = <T>(t: Record<TargetName, T>, f: (x: T, name: TargetName) => string) =>
    COLUMNS.map((n) => (t[n] === undefined ? "—" : f(t[n], n)));
  const spread = (t: Record<TargetName, { cpuUsPerRound: number[] }>, steal?: number | null) =>
    `${roundSpread(t.switchyard.cpuUsPerRound, t.proxy.cpuUsPerRound)}${steal == null ? "" : `; steal ${steal.toFixed(1)} %`}`;
  const minimalRatio = (t: Record<TargetName, { cpuUs: number | null }>) =>
    `minimal JS proxy ${ratio(t.minimal?.cpuUs ?? null, t.proxy.cpuUs)}`;
  const cpuRatio = (t: Record<TargetName, { cpuUs: number | null; cpuUsPerRound: number[] }>, steal?: number | null) =>
    `**${ratio(t.switchyard.cpuUs, t.proxy.cpuUs)}** (≤ 1.5×${spread(t, steal)}); ${minimalRatio(t)}`;
  for (const { concurrency: c, targets: t, stealPercent: steal } of r.json) {
    const d = t.direct;
    rows.push([`non-streaming, ${c} connections: requests/s`, ...each(t, (x) => int(x.rps)), ""]);
    rows.push([`… latency p50 / p99 (ms)`, ...each(t, (x) => pair(x.p50, x.p99)), ""]);
    rows.push([
      `… added over direct p50 / p99 (ms)`,
      ...each(t, (x, n) => (n === "direct" ? "—" : `${signed(x.p50 - d.p50)} / ${signed(x.p99 - d.p99)}`)),
      "",
    ]);
    rows.push([`… **CPU µs / request**`, ...each(t, (x) => int(x.cpuUs ?? NaN)), cpuRatio(t, steal)]);
    if (COLUMNS.some((n) => t[n]?.errors)) rows.push([`… errors`, ...each(t, (x) => int(x.errors)), ""]);
  }
  const chatAt = new Map(r.streams.filter((s) => (s.kind ?? "chat") === "chat").map((s) => [s.concurrency, s.targets]));
  for (const { concurrency: c, kind = "chat", targets: t, stealPercent: steal } of r.streams) {
    const d = t.direct;
    const chat = kind === "chat" ? undefined : chatAt.get(c);
    // Another dialect's target is the chat stream's ratio at the same concurrency, in the same run.
    const kindRatio = chat
      ? `**${ratio(t.switchyard.cpuUs, t.proxy.cpuUs)}** (≤ chat's ${ratio(chat.switchyard.cpuUs, chat.proxy.cpuUs)}${spread(t, steal)}); ${minimalRatio(t)}`
      : cpuRatio(t, steal);
    rows.push([`${KINDS[kind].label}, ${c} streams: TTFB p50 / p99 (ms)`, ...each(t, (x) => pair(x.ttfbP50, x.ttfbP99)), ""]);
    rows.push([
      `… TTFB added over direct p50 / p99 (ms)`,
      ...each(t, (x, n) => (n === "direct" ? "—" : `${signed(x.ttfbP50 - d.ttfbP50)} / ${signed(x.ttfbP99 - d.ttfbP99)}`)),
      `${signed(t.switchyard.ttfbP50 - t.proxy.ttfbP50)} ms p50 over bare${c === 32 && kind === "chat" ? " (≤ 1 ms)" : ""}`,
    ]);
    rows.push([`… total stream time p50 / p99 (ms)`, ...each(t, (x) => pair(x.totalP50, x.totalP99)), ""]);
    rows.push([`… complete streams`, ...each(t, (x) => `${x.complete}/${x.streams}`), ""]);
    rows.push([`… **CPU µs / stream**`, ...each(t, (x) => int(x.cpuUs ?? NaN)), kindRatio]);
  }
  const m = r.memory;
  rows.push([
    `gateway RSS idle / peak under 128 streams / after load (MB)`,
    "",
    "",
    "",
    `${mb(m.idleMb)} / ${mb(m.peak128Mb)} / ${mb(m.afterLoadMb)}`,
    "peak ≤ 100 MB",
  ]);
  rows.push([
    `gateway RSS after each 128-stream round (MB)`,
    "",
    "",
    "",
    m.afterEachRoundMb.map((x) => x.toFixed(0)).join(", "),
    "no growth",
  ]);
  rows.push([`gateway lifetime peak RSS, whole run (MB)`, "", "", "", mb(m.lifetimePeakMb), ""]);
  const s = r.startup;
  rows.push([
    `compiled binary exec → /readyz 200 (ms), fresh DB / existing DB`,
    "",
    "",
    "",
    `${ms(median(s.freshDbMs))} / ${ms(median(s.existingDbMs))}`,
    "",
  ]);
  if (r.recordWriter) {
    const w = r.recordWriter;
    rows.push([
      `record writer → SQLite (records/s; per CPU-second)`,
      "",
      "",
      "",
      `${int(w.recordsPerSecond)}; ${int(w.recordsPerCpuSecond)}${w.complete ? "" : " (LOSS)"}`,
      "≥ 10,000",
    ]);
  }
  const header = ["Metric", "direct", "bare proxy", "minimal JS proxy (reference)", "Switchyard", "Switchyard ÷ bare (target)"];
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

export function renderMarkdown(r: Results): string {
  const m = r.machine;
  const s = r.settings;
  const lines = [
    `Machine: ${m.nproc} cores, ${m.cpu}, bun ${m.bun}; ${m.pinning}. Load generator: ${m.loadGenerator}.` +
      (m.stealPercent == null
        ? ""
        : ` Steal while the loads ran: ${m.stealPercent.toFixed(1)} % of the machine's CPU time${stealWarning(m.stealPercent)}.`),
    `Run: ${r.mode}, ${r.date}. Mock upstream: streams of ${s.streamChunks} chunks, TTFT ${s.ttftMs} ms, ${s.gapMs} ms between chunks. ` +
      `${s.rounds} alternating rounds per load (${s.streamRounds ?? s.rounds} at 8 / 32 / 128 streams; order rotated each round), each load after a lead-in round of every target that is not counted; CPU of the proxy process (its threads' run time from /proc/<pid>/task/*/schedstat, in ns; utime+stime ticks when a thread ended), summed over the rounds. ` +
      `Switchyard runs as the compiled binary (dist/switchyard), SQLite, request records, metering and rate limits on, two providers for the model. ` +
      `"streaming" rows are chat completions streams to an OpenAI-protocol route; "Messages stream → anthropic" rows are POST /v1/messages streams to an Anthropic route, "Responses stream → responses" rows POST /v1/responses streams to a route served on the Responses API: the mock answers each in its own dialect's events with the same tokens, pace and usage. ` +
      `The minimal JS proxy (bench/minimal-proxy.ts, on Switchyard's socket client) is a reference, not a target: it parses every SSE event and re-serialises it and does nothing else, the floor a gateway that reads each chunk in JavaScript starts from.`,
    ...(s.gatewayEnv ? [`Experiment: the gateway ran with ${s.gatewayEnv} in its environment.`] : []),
    "",
    renderTable(r),
  ];
  if (r.failures.length) lines.push("", "Failures:", ...r.failures.map((f) => `- ${f}`));
  return lines.join("\n") + "\n";
}

/** Above this much steal the host was busy enough to move the ratios from round to round (bench/NOTES.md, 2026-11-28). */
const STEAL_WARNING_PERCENT = 5;
const stealWarning = (percent: number): string =>
  percent > STEAL_WARNING_PERCENT ? " (a busy host: the ratios below move more than usual between rounds and runs)" : "";

const BEGIN = "<!-- bench:begin -->";
const END = "<!-- bench:end -->";

/** Replaces the generated table of a document (docs/benchmark.md) between its markers (or appends a Benchmark section). */
export function updateReadme(readme: string, markdown: string): string {
  const block = `${BEGIN}\n${markdown}${END}`;
  const a = readme.indexOf(BEGIN);
  const b = readme.indexOf(END);
  if (a >= 0 && b > a) return readme.slice(0, a) + block + readme.slice(b + END.length);
  return `${readme.trimEnd()}\n\n## Benchmark\n\nRun \`bun run bench\` (about 5 minutes; \`bun run bench --quick\` for a shorter run).\n\n${block}\n`;
}
