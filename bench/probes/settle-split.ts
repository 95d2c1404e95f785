// `bun bench/probes/settle-split.ts [--concurrency 8] [--rounds 6] [KEY=VALUE …]`: the bench's CPU per stream
// split into what a process spends while a round's streams run and what it spends in the 300 ms after
// (the bench charges both: work a load leaves behind — record flushes, collections — is the load's),
// for the bare proxy, the minimal JS proxy on sockets and Switchyard, each pinned to core 1, rounds
// alternating. KEY=VALUE pairs go to Switchyard's environment.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { runStreams, warmUp, type Target } from "../load";
import { cpuMicrosBetween, cpuSample, envArgs, pinSelf } from "../procs";
import { median } from "../report";
import { adminKey, startMock, startTrio, writeConfig } from "../targets";

const { values: o } = parseArgs({
  args: Bun.argv.slice(2).filter((a) => !/^[A-Z_][A-Z0-9_]*=/.test(a)),
  options: { concurrency: { type: "string", default: "8" }, rounds: { type: "string", default: "6" } },
});
const C = Number(o.concurrency);
const PER_ROUND = C * 20;
const SETTLE_MS = 300;

pinSelf(0);
const dir = mkdtempSync(join(tmpdir(), "sw-settle-"));
const mock = await startMock(20, 5);
const g = { dir, configPath: writeConfig(dir, mock.url), adminKey: adminKey() };
const started = await startTrio(mock.url, g, { env: envArgs() });
try {
  const targets: Target[] = started.map((s) => s.target);
  for (const t of targets) await warmUp(t);
  const load = targets.map(() => [] as number[]);
  const after = targets.map(() => [] as number[]);
  for (let r = 0; r < Number(o.rounds); r++) {
    const order = r % 2 === 0 ? [...targets.keys()] : [...targets.keys()].reverse();
    for (const i of order) {
      const t = targets[i]!;
      const c0 = cpuSample(t.pid!);
      const run = await runStreams(t, PER_ROUND, C);
      if (run.firstFailure) throw new Error(run.firstFailure);
      const c1 = cpuSample(t.pid!);
      await Bun.sleep(SETTLE_MS);
      const c2 = cpuSample(t.pid!);
      load[i]!.push(cpuMicrosBetween(c0, c1) / run.count);
      after[i]!.push(cpuMicrosBetween(c1, c2) / run.count);
    }
  }
  console.log(
    `CPU µs per stream at ${C} streams (${PER_ROUND} per round), medians of ${o.rounds} rounds: during the load + in the ${SETTLE_MS} ms after`,
  );
  started.forEach((s, i) => {
    const [l, a] = [median(load[i]!), median(after[i]!)];
    console.log(
      `${s.name.padEnd(28)} ${l.toFixed(0).padStart(5)} + ${a.toFixed(0).padStart(4)} = ${(l + a).toFixed(0).padStart(5)}   after, by round: ${after[i]!.map((x) => x.toFixed(0)).join(" ")}`,
    );
  });
} finally {
  for (const s of started) await s.up.child.stop();
  await mock.child.stop();
  rmSync(dir, { recursive: true, force: true });
}
