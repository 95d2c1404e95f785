// The bench's measured loads (bench/run.ts): each load runs every target in alternating rounds, in an order
// rotated each round, and charges each round's CPU of the target's process, read once the work the round
// leaves behind has run; the steal while a load's rounds ran goes beside its figures.
//
// Each load starts with a lead-in round of every target that is not counted: what the previous load left
// behind (the heap and allocator pages of 128 JSON connections handed back, the JIT's recompiles of code
// idle since the warm-up) was paid in the next load's first round, which was the dearest of the 8-stream
// load in 7 of 12 full runs for Switchyard, often for the minimal proxy too (bench/NOTES.md, sessions 37
// to 39). A load's rows are its steady state; the transition belongs to no load.
import { runJson, runStreams, type Target, type TargetName } from "./load";
import { cpuMicrosBetween, cpuSample, machineTicks, stealPercent } from "./procs";
import { percentile, type JsonTargetResult, type StreamTargetResult } from "./report";

export const NAMES: TargetName[] = ["direct", "proxy", "minimal", "switchyard"];
/** After a round, before its CPU is read: the write-behind queue flushes every 100 ms. */
const SETTLE_MS = 300;

/** How many rounds, and how much load per round and target. */
export interface RoundPlan {
  /** Rounds of each JSON load. */
  rounds: number;
  jsonPerRound: number;
  streamsPerRound: Record<8 | 32 | 128, number>;
  /** Rounds of each stream load (a multiple of the four targets, see run.ts). */
  streamRounds: Record<8 | 32 | 128, number>;
}

/** One load's targets, with the steal while its rounds ran. */
export async function withSteal<T>(measure: () => Promise<T>): Promise<{ targets: T; stealPercent: number | null }> {
  const before = machineTicks();
  const targets = await measure();
  return { targets, stealPercent: stealPercent(before, machineTicks()) };
}

/** Round r runs the targets in a rotated order, so drift over the run falls on each target alike. */
function order(r: number): TargetName[] {
  return NAMES.map((_, i) => NAMES[(i + r) % NAMES.length]!);
}

/** A target's CPU over a load's rounds: total µs, clock ticks (kept in the JSON file), µs per unit of each round. */
class CpuTally {
  us = 0;
  ticks = 0;
  perRound: number[] = [];

  /** The result's CPU fields for `count` units (null where the target has no process: direct). */
  figures(count: number, hasCpu: boolean) {
    return { cpuUs: hasCpu ? this.us / count : null, cpuTicks: hasCpu ? this.ticks : null, cpuUsPerRound: this.perRound };
  }
}

/**
 * Runs one round of `work` against `t` and charges its CPU to `tally`, read once the work the round leaves
 * behind (write-behind flushes every 100 ms) has run. Direct has no process: nothing is charged.
 */
async function measured<R extends { count: number }>(t: Target, tally: CpuTally, work: () => Promise<R>): Promise<R> {
  const before = t.pid === null ? null : cpuSample(t.pid);
  const run = await work();
  if (before === null) return run;
  await Bun.sleep(SETTLE_MS);
  const after = cpuSample(t.pid!);
  const us = cpuMicrosBetween(before, after);
  tally.us += us;
  tally.ticks += after.ticks - before.ticks;
  tally.perRound.push(us / run.count);
  return run;
}

/** The lead-in round: every target once under the load, nothing counted but failures. */
async function leadIn(targets: Record<TargetName, Target>, run: (t: Target) => Promise<string | undefined>, failures: string[]) {
  for (const name of NAMES) {
    const failure = await run(targets[name]);
    if (failure) failures.push(`${name} lead-in round: ${failure}`);
  }
}

export async function measureJson(targets: Record<TargetName, Target>, concurrency: number, plan: RoundPlan, failures: string[]) {
  const acc = Object.fromEntries(NAMES.map((n) => [n, { lat: [] as number[], wall: 0, count: 0, errors: 0, cpu: new CpuTally() }]));
  await leadIn(targets, async (t) => (await runJson(t, plan.jsonPerRound, concurrency)).firstError, failures);
  for (let r = 0; r < plan.rounds; r++) {
    for (const name of order(r)) {
      const t = targets[name];
      const a = acc[name]!;
      const run = await measured(t, a.cpu, () => runJson(t, plan.jsonPerRound, concurrency));
      a.lat.push(...run.latencies);
      a.wall += run.wallMs;
      a.count += run.count;
      a.errors += run.errors;
      if (run.firstError) failures.push(`${name} non-streaming c=${concurrency}: ${run.errors} errors, first: ${run.firstError}`);
    }
  }
  const out = {} as Record<TargetName, JsonTargetResult>;
  for (const name of NAMES) {
    const a = acc[name]!;
    out[name] = {
      requests: a.count,
      errors: a.errors,
      rps: a.count / (a.wall / 1000),
      p50: percentile(a.lat, 50),
      p99: percentile(a.lat, 99),
      ...a.cpu.figures(a.count, targets[name].pid !== null),
    };
  }
  return out;
}

export async function measureStreams(targets: Record<TargetName, Target>, concurrency: 8 | 32 | 128, plan: RoundPlan, failures: string[]) {
  const acc = Object.fromEntries(
    NAMES.map((n) => [n, { ttfb: [] as number[], total: [] as number[], count: 0, complete: 0, cpu: new CpuTally() }]),
  );
  const perRound = plan.streamsPerRound[concurrency];
  await leadIn(targets, async (t) => (await runStreams(t, perRound, concurrency)).firstFailure, failures);
  for (let r = 0; r < plan.streamRounds[concurrency]; r++) {
    for (const name of order(r)) {
      const t = targets[name];
      const a = acc[name]!;
      const run = await measured(t, a.cpu, () => runStreams(t, perRound, concurrency));
      a.ttfb.push(...run.ttfb);
      a.total.push(...run.total);
      a.count += run.count;
      a.complete += run.complete;
      if (run.firstFailure)
        failures.push(`${name} streaming c=${concurrency}: ${run.count - run.complete} incomplete, first: ${run.firstFailure}`);
    }
  }
  const out = {} as Record<TargetName, StreamTargetResult>;
  for (const name of NAMES) {
    const a = acc[name]!;
    out[name] = {
      streams: a.count,
      complete: a.complete,
      ttfbP50: percentile(a.ttfb, 50),
      ttfbP99: percentile(a.ttfb, 99),
      totalP50: percentile(a.total, 50),
      totalP99: percentile(a.total, 99),
      ...a.cpu.figures(a.count, targets[name].pid !== null),
    };
  }
  return out;
}
