// `bun run bench`: direct → bare proxy → minimal JS proxy (a reference) → Switchyard under the same load,
// alternating rounds, one table. Streams come in three dialects (stream-kinds.ts): chat completions, and
// beside each chat row the same answer as Anthropic Messages and as OpenAI Responses events.
// Writes bench/results/latest.{md,json} and bench/README.md's table (--quick: quick.{md,json},
// that table untouched). Then the saturation section (saturation.ts: wrk against the bare proxy and
// Switchyard on SQLite and on Postgres + Redis); `--saturation` runs that section alone. KEY=VALUE arguments go to the gateway's environment, for an experiment: the run's
// settings name them, and a full run writes experiment.{md,json}, leaving latest.* and that table alone.
// Everything runs on loopback, every loop is bounded, every child is killed on exit.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { runStreams, warmUp, WARMUP, type Target, type TargetName } from "./load";
import { STREAM_CHUNKS } from "./mock-upstream";
import {
  CLK_TCK,
  CORES,
  PINNING,
  envArgs,
  memory,
  pinSelf,
  pinned,
  machineTicks,
  resetPeak,
  stealPercent,
  spawnChild,
  waitForOutput,
} from "./procs";
import { median, renderMarkdown, updateReadme, type Results } from "./report";
import { runSaturation, skippedSaturation, writeSaturation } from "./saturation";
import { NAMES, measureJson, measureStreams, withSteal } from "./rounds";
import { STREAM_KINDS, type StreamKind } from "./stream-kinds";
import {
  ROOT,
  adminKey,
  buildBinary,
  kindTarget,
  startBareProxy,
  startGateway,
  startMinimal,
  startMock,
  timeToReady,
  writeConfig,
} from "./targets";

const quick = Bun.argv.includes("--quick");
/** KEY=VALUE arguments: extra environment of the gateway (an experiment, never the published table). */
const gatewayEnvArgs = envArgs();
const experiment = Object.keys(gatewayEnvArgs).length > 0;
const readmeToo = !quick && !Bun.argv.includes("--no-readme") && !experiment;
const saturationOnly = Bun.argv.includes("--saturation");
const S = quick
  ? {
      rounds: 2,
      jsonPerRound: 800,
      streamsPerRound: { 8: 48, 32: 128, 128: 256 },
      streamRounds: { 8: 2, 32: 2, 128: 2 },
      memRounds: 10,
      memStreams: 128,
      starts: 1,
      records: 20_000,
    }
  : {
      // Eight rounds: the order rotates over the four targets, so with a multiple of four each target takes
      // each place in the order equally often (with five, one place came twice: the same target ran first
      // after the previous load twice).
      rounds: 8,
      // A round of a target lasts ~1 s at least (3,000 JSON requests took ~0.2 s, short enough for one of the
      // VM's hiccups to move a round's ratio by a quarter). The 8-stream load is the lightest: at 160 streams
      // (2.4 s) a round's ratio spread 1.06–1.87 in one run; 240 per round, eight rounds, is 2.4× the streams.
      jsonPerRound: 12_000,
      streamsPerRound: { 8: 240, 32: 384, 128: 1536 },
      // Sixteen at 8 and 32 streams: their rounds' ratios spread ~±0.3 around the run's (0.83–2.13 at 8 over
      // the full runs of sessions 37–38, 0.78–2.32 at 32 in session 39's), so eight left a row's ratio ±0.1
      // from run to run, as much as its margin under the target; twice the rounds halve the variance (~3 more
      // minutes). At 128 streams the rounds agree within ~±0.1: eight are enough.
      streamRounds: { 8: 16, 32: 16, 128: 8 },
      memRounds: 10,
      memStreams: 256,
      starts: 3,
      records: 50_000,
    };
const TTFT_MS = 20;
const GAP_MS = 5;

function log(msg: string): void {
  process.stderr.write(`[bench] ${msg}\n`);
}

function machine(): Results["machine"] {
  const model = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? cpus()[0]?.model ?? "unknown CPU";
  const tools = `wrk ${Bun.which("wrk") ? "present" : "absent"}: it drives the saturation section, not these loads`;
  return {
    nproc: CORES,
    cpu: model.trim(),
    bun: Bun.version,
    pinning: PINNING ? "proxy/gateway pinned to core 1, load generator + mock to core 0 (taskset)" : "no pinning (one core or no taskset)",
    // One client for every target keeps the comparison fair and checks every stream's content.
    loadGenerator: `Bun fetch client, keep-alive, fixed concurrency (${tools})`,
  };
}

async function recordWriter(records: number): Promise<Results["recordWriter"]> {
  const child = spawnChild(
    "record-writer",
    pinned([process.execPath, join(ROOT, "bench/record-writer.ts"), String(records)], 1),
    {},
    { cwd: ROOT },
  );
  try {
    // Take its one JSON line as soon as it is printed: the process need not exit on its own.
    const line = await waitForOutput(child, /^(\{.*"records_per_second".*\})$/m, 120_000);
    const j = JSON.parse(line) as { records: number; complete: boolean; records_per_second: number; records_per_cpu_second: number };
    return {
      records: j.records,
      complete: j.complete,
      recordsPerSecond: j.records_per_second,
      recordsPerCpuSecond: j.records_per_cpu_second,
    };
  } finally {
    await child.stop(2_000);
  }
}

const mbOf = (kb: number) => kb / 1024;

async function main(): Promise<number> {
  const started = performance.now();
  pinSelf(0);
  const dir = mkdtempSync(join(tmpdir(), "switchyard-bench-"));
  const failures: string[] = [];
  try {
    log(`building the binary (bun run build)…`);
    const build = await buildBinary(dir);
    const mock = await startMock(TTFT_MS, GAP_MS);
    const saturation = () =>
      runSaturation({ binary: build.path, mockUrl: mock.url, dir, quick, ttftMs: TTFT_MS, gapMs: GAP_MS, env: gatewayEnvArgs, log });
    if (saturationOnly) {
      const sat = await saturation();
      await mock.child.stop();
      const written = writeSaturation(sat, { quick, experiment, readme: readmeToo });
      process.stdout.write(written.md);
      log(`done in ${Math.round((performance.now() - started) / 1000)} s; wrote ${written.paths.join(", ")}`);
      return sat.failures.length ? 1 : 0;
    }
    const g = { dir, configPath: writeConfig(dir, mock.url), adminKey: adminKey() };
    log(`binary built in ${(build.ms / 1000).toFixed(1)} s; timing exec → /readyz 200…`);
    const freshDbMs: number[] = [];
    const existingDbMs: number[] = [];
    for (let i = 0; i < S.starts; i++) freshDbMs.push(await timeToReady(g, build.path, `start-${i}.db`));
    for (let i = 0; i < S.starts; i++) existingDbMs.push(await timeToReady(g, build.path, `start-0.db`));
    log(`record writer micro-benchmark (${S.records} records)…`);
    const rw = await recordWriter(S.records);

    const proxy = await startBareProxy(mock.url);
    // The reference column: the cheapest JS proxy that reads every event (floor.ts has it by thread).
    const minimal = await startMinimal(mock.url, "sockets");
    const gw = await startGateway(g, { binary: build.path, env: gatewayEnvArgs });
    // Each process under each stream kind's URL and headers; JSON requests go to the chat targets.
    const targetsOf = (kind: StreamKind): Record<TargetName, Target> => ({
      direct: kindTarget("direct", mock.url, null, null, kind),
      proxy: kindTarget("proxy", proxy.url, proxy.child.pid, null, kind),
      minimal: kindTarget("minimal", minimal.url, minimal.child.pid, null, kind),
      switchyard: kindTarget("switchyard", gw.url, gw.child.pid, g.adminKey, kind),
    });
    const byKind = Object.fromEntries(STREAM_KINDS.map((k) => [k, targetsOf(k)])) as Record<StreamKind, Record<TargetName, Target>>;
    const targets = byKind.chat;
    log("warming up…");
    // WARMUP (load.ts): until the JIT has compiled, every stream kind at once.
    for (const name of NAMES)
      await warmUp(
        targets[name],
        WARMUP,
        STREAM_KINDS.map((k) => byKind[k][name]),
      );
    await Bun.sleep(500);
    const idleKb = memory(gw.child.pid).rssKb;

    const results: Results = {
      date: new Date().toISOString(),
      mode: quick ? "quick" : "full",
      machine: machine(),
      settings: {
        rounds: S.rounds,
        streamRounds: `${S.streamRounds[8]} / ${S.streamRounds[32]} / ${S.streamRounds[128]}`,
        jsonPerRound: S.jsonPerRound,
        ttftMs: TTFT_MS,
        gapMs: GAP_MS,
        streamChunks: STREAM_CHUNKS,
        streamKinds: STREAM_KINDS.join(", "),
        clkTck: CLK_TCK,
        memStreams: S.memStreams,
        ...(experiment
          ? {
              gatewayEnv: Object.entries(gatewayEnvArgs)
                .map(([k, v]) => `${k}=${v}`)
                .join(" "),
            }
          : {}),
      },
      json: [],
      streams: [],
      memory: { idleMb: mbOf(idleKb), lifetimePeakMb: 0, peak128Mb: 0, afterLoadMb: 0, afterEachRoundMb: [] },
      startup: { buildMs: build.ms, freshDbMs, existingDbMs },
      recordWriter: rw,
      failures,
    };
    const ticksAtStart = machineTicks();
    for (const c of [32, 128]) {
      log(`non-streaming, ${c} connections…`);
      results.json.push({ concurrency: c, ...(await withSteal(() => measureJson(targets, c, S, failures))) });
    }
    // Each dialect's row beside the chat row of its concurrency, measured right after it.
    for (const c of [8, 32, 128] as const) {
      for (const kind of STREAM_KINDS) {
        log(`streaming (${kind}), ${c} streams…`);
        results.streams.push({ concurrency: c, kind, ...(await withSteal(() => measureStreams(byKind[kind], c, S, failures))) });
      }
    }
    results.machine.stealPercent = stealPercent(ticksAtStart, machineTicks());
    log(`memory: ${S.memRounds} rounds of ${S.memStreams} streams at 128 concurrency…`);
    results.memory.lifetimePeakMb = mbOf(memory(gw.child.pid).hwmKb);
    const reset = resetPeak(gw.child.pid);
    for (let i = 0; i < S.memRounds; i++) {
      const run = await runStreams(targets.switchyard, S.memStreams, 128);
      if (run.firstFailure) failures.push(`memory round ${i + 1}: ${run.count - run.complete} incomplete, first: ${run.firstFailure}`);
      await Bun.sleep(200);
      results.memory.afterEachRoundMb.push(mbOf(memory(gw.child.pid).rssKb));
    }
    // Without clear_refs the peak is the whole run's (an upper bound of the 128-stream peak).
    results.memory.peak128Mb = mbOf(memory(gw.child.pid).hwmKb);
    if (!reset) results.settings.peakNote = "clear_refs unavailable: peak is the whole run's";
    await Bun.sleep(1000);
    results.memory.afterLoadMb = mbOf(memory(gw.child.pid).rssKb);

    await Promise.all([gw.child.stop(), proxy.child.stop(), minimal.child.stop()]);
    log("saturation section (wrk)…");
    const sat = Bun.argv.includes("--no-saturation") ? skippedSaturation(quick, "--no-saturation") : await saturation();
    failures.push(...sat.failures);
    const satWritten = writeSaturation(sat, { quick, experiment, readme: readmeToo });
    await mock.child.stop();
    results.settings.elapsedS = Math.round((performance.now() - started) / 1000);
    const mainMd = renderMarkdown(results);
    const md = `${mainMd}\n${satWritten.md}`;
    results.saturation = sat;
    process.stdout.write(md);
    // An experiment's full run does not take the place of the latest real one.
    const base = join(ROOT, "bench/results", quick ? "quick" : experiment ? "experiment" : "latest");
    writeFileSync(`${base}.md`, md);
    writeFileSync(
      `${base}.json`,
      JSON.stringify(results, (_, v) => (typeof v === "number" && !Number.isInteger(v) ? Math.round(v * 100) / 100 : v), 1) + "\n",
    );
    if (readmeToo) {
      // The table lives in bench/README.md (the README is for users and links there).
      const doc = join(ROOT, "bench", "README.md");
      writeFileSync(doc, updateReadme(readFileSync(doc, "utf8"), mainMd));
    }
    log(
      `done in ${results.settings.elapsedS} s; wrote ${base}.md and .json${readmeToo ? " and bench/README.md's table" : ""}, ${satWritten.paths.join(", ")}`,
    );
    log(`median startup ${median(freshDbMs).toFixed(0)} ms`);
    return failures.length ? 1 : 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`[bench] failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
