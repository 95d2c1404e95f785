// Renders the routing bench: a table per scenario (where the requests went, against the oracle) for the
// terminal, a summary table with the targets' verdicts for both, and the block docs/benchmark.md holds between its markers.
import { readFileSync, writeFileSync } from "node:fs";
import { MARKET, blended } from "./market";
import type { Metrics } from "./metrics";

export const BEGIN = "<!-- routing-bench:start -->";
export const END = "<!-- routing-bench:end -->";

const pct = (v: number) => `${(v * 100).toFixed(1)} %`;
const x = (v: number | null) => (v === null ? "n/a" : `${v.toFixed(2)}×`);

function switching(m: Metrics): string {
  if (m.switches.length === 0) return "–";
  return m.switches.map((s) => (s.after === null ? "never" : String(s.after))).join(", ");
}

/** One row per scenario; `timing: false` leaves out the planner's CPU (the only figure that is not deterministic). */
export function summaryTable(all: Metrics[], timing = true): string {
  const head =
    "| scenario | cost × | TTFT p50 × | TTFT p90 × | tok/s × | score × | on oracle's route | switching after (requests) | success | over a ceiling | explored | planner µs/request | targets |";
  const rule = "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|";
  const rows = all.map((m) => {
    // Which targets were judged, so that a scenario checked on exploration alone does not read as a clean bill.
    const failed = m.verdicts.filter((v) => !v.pass).map((v) => v.name);
    const verdict = failed.length === 0 ? `PASS: ${m.verdicts.map((v) => v.name).join(", ")}` : `FAIL: ${failed.join(", ")}`;
    const cells = [
      m.scenario.name,
      x(m.costRatio),
      x(m.ttftP50Ratio),
      x(m.ttftP90Ratio),
      x(m.tpsRatio),
      x(m.scoreRatio),
      pct(m.onOracle),
      switching(m),
      pct(m.success),
      String(m.overCeiling),
      pct(m.explored),
      timing ? m.planUs.toFixed(1) : "–",
      verdict,
    ];
    return `| ${cells.join(" | ")} |`;
  });
  return [head, rule, ...rows].join("\n");
}

export function verdictList(all: Metrics[]): string {
  return all.flatMap((m) => m.verdicts.map((v) => `- ${v.pass ? "PASS" : "FAIL"} ${m.scenario.name}: ${v.detail}`)).join("\n");
}

/** Where one scenario's requests went, per provider, beside the market's truth at the start. */
export function scenarioTable(m: Metrics): string {
  const s = m.scenario;
  const ceilings = [
    s.maxCostPer1m !== undefined ? `max_cost_per_1m ${s.maxCostPer1m}` : null,
    s.maxTtftMs !== undefined ? `max_ttft_ms ${s.maxTtftMs}` : null,
  ].filter((c) => c !== null);
  const lines = [
    `### ${s.name}: ${s.story}`,
    "",
    `${m.scored} scored requests after ${s.warmup} of warm-up${ceilings.length ? `; ${ceilings.join(", ")}` : ""}; ~${m.inFlight.toFixed(0)} requests in flight (an outcome reaches the router that many requests later).`,
    "",
    "| route | blended $/1M | true TTFT p50 | true tok/s p50 | hint | first choice | served | oracle |",
    "|---|--:|--:|--:|---|--:|--:|--:|",
  ];
  for (const r of MARKET) {
    const sh = m.shares.get(r.provider) ?? { first: 0, served: 0, oracle: 0 };
    lines.push(
      `| ${r.provider} | ${blended(r).toFixed(2)} | ${r.ttftMs} ms | ${r.tps} | ${r.latencyHint} | ${pct(sh.first)} | ${pct(sh.served)} | ${pct(sh.oracle)} |`,
    );
  }
  if (m.switches.length > 0) {
    lines.push("");
    for (const w of m.switches)
      lines.push(
        `- change at request ${w.atRequest} → oracle ${w.to ?? "none"}: ${w.after === null ? "never switched" : `switched after ${w.after} requests`}; ` +
          (w.heard === null
            ? "no answer of the changed route under its new figures ever reached the router"
            : `the changed route's first answer under its new figures reached the router after ${w.heard}`),
      );
  }
  return lines.join("\n");
}

/** The docs/benchmark.md block: how it was run, the summary (its last column names the targets judged) and what each scenario is. */
export function summaryBlock(all: Metrics[], header: string): string {
  const stories = all.map((m) => `- ${m.scenario.name}: ${m.scenario.story}`);
  return [BEGIN, header, "", summaryTable(all), "", ...stories, END].join("\n");
}

/**
 * Replaces the block between the markers; without them, appends the markers at the end of the
 * "## Benchmark" section (before the next "## " heading, or at the end of the file).
 */
export function writeBlock(path: string, block: string): void {
  const text = readFileSync(path, "utf8");
  const begin = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  let out: string;
  if (begin >= 0 && end > begin) out = text.slice(0, begin) + block + text.slice(end + END.length);
  else {
    const section = text.indexOf("\n## Benchmark");
    const next = section >= 0 ? text.indexOf("\n## ", section + 1) : -1;
    const at = next >= 0 ? next : text.length;
    const before = text.slice(0, at).replace(/\n*$/, "\n\n");
    out = `${before}${block}\n${text.slice(at)}`;
  }
  writeFileSync(path, out);
}
