// The saturation section's results: the JSON shape (bench/results/saturation*.json) and its table, with the
// ratios against issue 58's targets: Switchyard ÷ bare proxy and shared mode ÷ single node.
import { median } from "./report";

export type SatName = "proxy" | "switchyard" | "shared";
export const SAT_NAMES: SatName[] = ["proxy", "switchyard", "shared"];
export const SAT_LABELS: Record<SatName, string> = {
  proxy: "bare proxy",
  switchyard: "Switchyard (SQLite)",
  shared: "Switchyard (Postgres + Redis)",
};

export interface SatLoad {
  kind: "json" | "stream";
  connections: number;
}

/** One wrk round of one target (latencies in ms; busy: share of the core's time, %). */
export interface SatRound {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  /** The target process's CPU over the round (and the 300 ms after it) ÷ the requests wrk completed. */
  cpuUsPerRequest: number;
  non2xx: number;
  socketErrors: number;
  targetCoreBusy: number | null;
  loadCoreBusy: number | null;
}

/** A target under one load: medians over the rounds, error totals, and the rounds themselves. */
export interface SatTargetResult {
  rps: number;
  p50: number;
  p99: number;
  cpuUs: number;
  requests: number;
  non2xx: number;
  socketErrors: number;
  /** Rounds with a non-2xx answer or a socket error. */
  flaggedRounds: number;
  targetCoreBusy: number | null;
  loadCoreBusy: number | null;
  rounds: SatRound[];
}

export interface SatLoadResult extends SatLoad {
  targets: Partial<Record<SatName, SatTargetResult>>;
  stealPercent: number | null;
}

export interface SaturationResults {
  date: string;
  mode: "full" | "quick";
  /** wrk's version, null when the section was skipped. */
  wrk: string | null;
  /** Why the section did not run (no wrk), else null. */
  skipped: string | null;
  settings: Record<string, number | string>;
  /** What the reader must know about this run (a target that could not start, wrk just installed). */
  notes: string[];
  loads: SatLoadResult[];
  failures: string[];
}

export function summarise(rounds: SatRound[]): SatTargetResult {
  const med = (f: (r: SatRound) => number) => median(rounds.map(f));
  const busy = (f: (r: SatRound) => number | null) => {
    const v = rounds.map(f).filter((x): x is number => x !== null);
    return v.length ? median(v) : null;
  };
  const sum = (f: (r: SatRound) => number) => rounds.reduce((a, r) => a + f(r), 0);
  return {
    rps: med((r) => r.rps),
    p50: med((r) => r.p50),
    p99: med((r) => r.p99),
    cpuUs: med((r) => r.cpuUsPerRequest),
    requests: sum((r) => r.requests),
    non2xx: sum((r) => r.non2xx),
    socketErrors: sum((r) => r.socketErrors),
    flaggedRounds: rounds.filter((r) => r.non2xx + r.socketErrors > 0).length,
    targetCoreBusy: busy((r) => r.targetCoreBusy),
    loadCoreBusy: busy((r) => r.loadCoreBusy),
    rounds,
  };
}

const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "—");
const ms = (n: number) => (Number.isFinite(n) ? (n >= 100 ? n.toFixed(0) : n.toFixed(2)) : "—");
const pct = (n: number | null) => (n === null ? "—" : n.toFixed(0));

/** The per-round ratios' range (round r ran both targets back to back): how much the noise moves it. */
function spread(a: SatTargetResult | undefined, b: SatTargetResult | undefined): string {
  const per = (a?.rounds ?? []).map((x, i) => x.cpuUsPerRequest / (b?.rounds[i]?.cpuUsPerRequest ?? NaN)).filter(Number.isFinite);
  return per.length < 2 ? "" : `; rounds ${Math.min(...per).toFixed(2)}–${Math.max(...per).toFixed(2)}`;
}

/** `a ÷ b` against a bound: "**1.34×** (≤ 1.5×: met)", judged on the ratio as shown; without a bound, the plain ratio. */
function against(a: number | undefined, b: number | undefined, bound?: { max?: number; min?: number }, extra = ""): string {
  if (a === undefined || b === undefined || !(b > 0) || !Number.isFinite(a)) return "—";
  const r = Math.round((a / b) * 100) / 100;
  if (!bound) return `${r.toFixed(2)}×`;
  const met = bound.max !== undefined ? r <= bound.max : r >= bound.min!;
  const spec = bound.max !== undefined ? `≤ ${bound.max}×` : `≥ ${bound.min}×`;
  return `**${r.toFixed(2)}×** (${spec}: ${met ? "met" : "MISSED"}${extra})`;
}

const loadLabel = (l: SatLoad) =>
  l.kind === "json" ? `non-streaming, ${l.connections} connections` : `streams (stream: true), ${l.connections} connections`;

export function renderSaturationTable(r: SaturationResults): string {
  const rows: string[][] = [];
  for (const load of r.loads) {
    const t = load.targets;
    const cell = (f: (x: SatTargetResult) => string) => SAT_NAMES.map((n) => (t[n] ? f(t[n]) : "—"));
    const unit = load.kind === "json" ? "request" : "stream";
    const flagged = SAT_NAMES.some((n) => (t[n]?.flaggedRounds ?? 0) > 0);
    const steal = load.stealPercent === null ? "" : ` (steal ${load.stealPercent.toFixed(1)} %)`;
    rows.push([
      `${loadLabel(load)}: ${unit}s/s${steal}${flagged ? " ⚠ errors" : ""}`,
      ...cell((x) => int(x.rps)),
      against(t.switchyard?.rps, t.proxy?.rps, { min: 0.65 }),
      against(t.shared?.rps, t.switchyard?.rps),
    ]);
    rows.push([
      `… latency p50 / p99 (ms)${load.kind === "stream" ? ", whole stream" : ""}`,
      ...cell((x) => `${ms(x.p50)} / ${ms(x.p99)}`),
      `p99 ${against(t.switchyard?.p99, t.proxy?.p99, { max: 3 })}`,
      `p99 ${against(t.shared?.p99, t.switchyard?.p99, { max: 3 })}`,
    ]);
    rows.push([
      `… **CPU µs / ${unit}**`,
      ...cell((x) => int(x.cpuUs)),
      against(t.switchyard?.cpuUs, t.proxy?.cpuUs, { max: 1.5 }, spread(t.switchyard, t.proxy)),
      against(t.shared?.cpuUs, t.switchyard?.cpuUs, { max: 1.5 }, spread(t.shared, t.switchyard)),
    ]);
    rows.push([`… core busy, target's / wrk + mock's (%)`, ...cell((x) => `${pct(x.targetCoreBusy)} / ${pct(x.loadCoreBusy)}`), "", ""]);
    rows.push([
      `… non-2xx / socket errors (rounds flagged)`,
      ...cell((x) => `${int(x.non2xx)} / ${int(x.socketErrors)}${x.flaggedRounds ? ` (⚠ ${x.flaggedRounds})` : ""}`),
      "",
      "",
    ]);
  }
  const header = ["Metric", ...SAT_NAMES.map((n) => SAT_LABELS[n]), "Switchyard ÷ bare (target)", "shared ÷ single node (target)"];
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

export function renderSaturation(r: SaturationResults): string {
  const lines = ["### Saturation (wrk)", ""];
  if (r.skipped) {
    lines.push(`Skipped: ${r.skipped}.`);
    return lines.join("\n") + "\n";
  }
  const s = r.settings;
  lines.push(
    `Run: ${r.mode}, ${r.date}; wrk ${r.wrk} (${s.wrkArgs}), pinned with the mock upstream to core 0, each target to core 1. ` +
      `${s.rounds} alternating rounds of ${s.seconds} s per load and target (order rotated each round), after a warm-up (${s.warmup}) and an uncounted lead-in round of ${s.leadInSeconds} s; ` +
      `figures are the medians of the rounds. CPU per request: the target process's CPU time over the round and the ${s.settleMs} ms after it (its threads' schedstat), ÷ the requests wrk completed. ` +
      `Streams are chat completions with \`stream: true\` (${s.streamChunks} chunks, TTFT ${s.ttftMs} ms, ${s.gapMs} ms apart); their latency is the whole stream's. ` +
      `Shared mode: Postgres (a database created for the run and dropped after) and Redis (a prefix of its own).`,
  );
  for (const n of r.notes) lines.push("", `Note: ${n}`);
  lines.push("", renderSaturationTable(r));
  if (r.failures.length) lines.push("", "Failures (saturation):", ...r.failures.map((f) => `- ${f}`));
  return lines.join("\n") + "\n";
}

const BEGIN = "<!-- bench-saturation:begin -->";
const END = "<!-- bench-saturation:end -->";

/** Replaces the saturation table between its markers in bench/README.md (the document is left alone without them). */
export function updateSaturationReadme(readme: string, markdown: string): string {
  const a = readme.indexOf(BEGIN);
  const b = readme.indexOf(END);
  if (a < 0 || b < a) return readme;
  return readme.slice(0, a) + `${BEGIN}\n${markdown}${END}` + readme.slice(b + END.length);
}
