// Scores one scenario's run against its oracle: the figures (cost, TTFT and throughput ratios,
// requests until switching, success, ceilings, exploration) and its targets, PASS or FAIL.
import { INTER_ARRIVAL_MS, type RequestRecord } from "./sim";
import type { Scenario } from "./scenarios";

/** Requests in a row the first choice must match the oracle for the router to count as switched. */
export const SWITCH_STREAK = 10;
export const TARGETS = { costRatio: 1.02, ttftP50Ratio: 1.05, switchWithin: 25, exploreShare: 0.05 } as const;

export interface Switch {
  atRequest: number;
  /** The oracle's route right after the change. */
  to: string | null;
  /** Requests after the change until the first of SWITCH_STREAK matching choices; null: never. */
  after: number | null;
  /** Requests after the change until the first answer the changed route gave under its new figures reached the router; null: never. */
  heard: number | null;
}

export interface Verdict {
  name: string;
  pass: boolean;
  detail: string;
}

export interface Metrics {
  scenario: Scenario;
  scored: number;
  costRatio: number | null;
  ttftP50Ratio: number | null;
  ttftP90Ratio: number | null;
  tpsRatio: number | null;
  /** Mean true score of the served routes over the oracle's: 1 is the oracle; near-ties cost little here. */
  scoreRatio: number | null;
  onOracle: number;
  switches: Switch[];
  success: number;
  overCeiling: number;
  explored: number;
  planUs: number;
  /** Requests in flight on average (mean served latency over the mean gap): how late the router hears. */
  inFlight: number;
  /** Per provider: share of first choices, of requests served, of oracle picks (scored requests). */
  shares: Map<string, { first: number; served: number; oracle: number }>;
  verdicts: Verdict[];
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

function ratio(a: number, b: number): number | null {
  return Number.isFinite(a) && Number.isFinite(b) && b > 0 ? a / b : null;
}

/** Requests after `at` until the first one that arrived once the changed route's first new answer was recorded. */
function heardAfter(records: RequestRecord[], at: number, provider: string): number | null {
  const changedAt = records[at]!.arrival;
  let heardAt = Infinity;
  for (const r of records) if (r.served === provider && r.startedAt! >= changedAt && r.doneAt! < heardAt) heardAt = r.doneAt!;
  for (let j = at; j < records.length; j++) if (records[j]!.arrival >= heardAt) return j - at;
  return null;
}

function switchAfter(records: RequestRecord[], at: number, provider: string): Switch {
  const heard = heardAfter(records, at, provider);
  let streak = 0;
  for (let j = at; j < records.length; j++) {
    const r = records[j]!;
    streak = r.first !== null && r.first === r.oracle ? streak + 1 : 0;
    if (streak === SWITCH_STREAK) return { atRequest: at, to: records[at]!.oracle, after: j - SWITCH_STREAK + 1 - at, heard };
  }
  return { atRequest: at, to: records[at]?.oracle ?? null, after: null, heard };
}

export function score(s: Scenario, all: RequestRecord[]): Metrics {
  const scored = all.slice(s.warmup);
  const both = scored.filter((r) => r.served !== null && r.oracle !== null);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const ttft = both.map((r) => r.ttftMs!);
  const oracleTtft = both.map((r) => r.oracleTtftMs!);
  const served = scored.filter((r) => r.served !== null);
  const shares = new Map<string, { first: number; served: number; oracle: number }>();
  const bump = (p: string | null, k: "first" | "served" | "oracle") => {
    if (p === null) return;
    const e = shares.get(p) ?? { first: 0, served: 0, oracle: 0 };
    e[k] += 1 / scored.length;
    shares.set(p, e);
  };
  for (const r of scored) {
    bump(r.first, "first");
    bump(r.served, "served");
    bump(r.oracle, "oracle");
  }
  const m: Metrics = {
    scenario: s,
    scored: scored.length,
    costRatio: ratio(sum(both.map((r) => r.price!)), sum(both.map((r) => r.oraclePrice!))),
    ttftP50Ratio: both.length ? ratio(percentile(ttft, 0.5), percentile(oracleTtft, 0.5)) : null,
    ttftP90Ratio: both.length ? ratio(percentile(ttft, 0.9), percentile(oracleTtft, 0.9)) : null,
    tpsRatio: both.length
      ? ratio(
          percentile(
            both.map((r) => r.tps!),
            0.5,
          ),
          percentile(
            both.map((r) => r.oracleTps!),
            0.5,
          ),
        )
      : null,
    scoreRatio: ratio(sum(both.map((r) => r.score!)), sum(both.map((r) => r.oracleScore!))),
    onOracle: scored.filter((r) => r.served !== null && r.served === r.oracle).length / scored.length,
    switches: s.changes.filter((c) => c.atRequest < all.length).map((c) => switchAfter(all, c.atRequest, c.provider)),
    success: served.length / scored.length,
    overCeiling: scored.filter((r) => r.overCeiling).length,
    explored: scored.filter((r) => r.explored).length / scored.length,
    planUs: sum(scored.map((r) => r.planUs)) / Math.max(1, scored.length),
    inFlight: sum(served.map((r) => r.latencyMs!)) / Math.max(1, served.length) / INTER_ARRIVAL_MS,
    shares,
    verdicts: [],
  };
  m.verdicts = verdicts(m);
  return m;
}

const x = (v: number | null) => (v === null ? "n/a" : `${v.toFixed(2)}×`);

function verdicts(m: Metrics): Verdict[] {
  const s = m.scenario;
  const out: Verdict[] = [];
  const add = (name: string, pass: boolean, detail: string) => out.push({ name, pass, detail });
  for (const t of s.targets) {
    if (t === "cost")
      add("cost", m.costRatio !== null && m.costRatio <= TARGETS.costRatio, `cost ${x(m.costRatio)} ≤ ${TARGETS.costRatio}×`);
    if (t === "ttft")
      add(
        "ttft",
        m.ttftP50Ratio !== null && m.ttftP50Ratio <= TARGETS.ttftP50Ratio,
        `p50 TTFT ${x(m.ttftP50Ratio)} ≤ ${TARGETS.ttftP50Ratio}×`,
      );
    if (t === "switching") {
      const worst = m.switches.map((w) => w.after ?? Infinity).reduce((a, b) => Math.max(a, b), 0);
      const shown = m.switches.map((w) => (w.after === null ? "never" : String(w.after))).join(", ");
      add("switching", worst <= TARGETS.switchWithin, `switching after ${shown} requests ≤ ${TARGETS.switchWithin}`);
    }
    if (t === "success") add("success", m.success === 1, `success ${(m.success * 100).toFixed(2)} % = 100 %`);
    if (t === "ceiling") add("ceiling", m.overCeiling === 0, `${m.overCeiling} requests over a ceiling = 0`);
  }
  // Exploration: bounded everywhere, none under strict cost (its figure is known).
  const bound = s.optimize === "cost" ? 0 : TARGETS.exploreShare;
  add("exploration", m.explored <= bound, `explored ${(m.explored * 100).toFixed(1)} % ≤ ${(bound * 100).toFixed(0)} %`);
  return out;
}
