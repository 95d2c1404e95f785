// `bun bench/probes/loop-stalls.ts [--threshold MS] [KEY=VAL…]`: how long the gateway's event loop stops
// under load — the time every request and stream in flight waits, whatever the cause (a synchronous
// collection, a SQLite commit that checkpoints its WAL, a long JSON task). The gateway (source run, the
// bench's mock and configuration; KEY=VAL pairs go to its environment) runs with a preloaded ticker that
// notes each gap between its 2 ms ticks longer than the threshold (40 ms by default), from after the
// warm-up until the end of the load: eight rounds of 20,000 JSON requests at 32 connections, then 1,536
// streams at 128. Prints the stalls, their count and the largest. Found this way (2026-11-29, session 32):
// with the WAL checkpointed every 10,000 pages the loop stopped for 78–80 ms every ~5 s under the JSON
// load (the commit that ran the checkpoint); at 1,000 pages no stall passed 40 ms.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { runJson, runStreams, warmUp } from "../load";
import { envArgs } from "../procs";
import { adminKey, gatewayTarget, startGateway, startMock, writeConfig } from "../targets";

const { values: o, positionals } = parseArgs({
  args: Bun.argv.slice(2),
  allowPositionals: true,
  options: { threshold: { type: "string", default: "40" } },
});
const dir = mkdtempSync(join(tmpdir(), "sy-stalls-"));
const ticker = join(dir, "ticker.ts");
// SIGUSR1 starts the record (after the warm-up), SIGUSR2 prints it as one line.
writeFileSync(
  ticker,
  `const threshold = ${Number(o.threshold)};
let on = false;
let last = performance.now();
const stalls = [];
setInterval(() => {
  const now = performance.now();
  if (on && now - last - 2 > threshold) stalls.push(Math.round(now - last - 2));
  last = now;
}, 2).unref();
process.on("SIGUSR1", () => { on = true; last = performance.now(); });
process.on("SIGUSR2", () => console.error("@@stalls " + JSON.stringify(stalls)));
`,
);
const mock = await startMock(20, 5);
const g = { dir, configPath: writeConfig(dir, mock.url), adminKey: adminKey() };
const gw = await startGateway(g, { bunFlags: ["--preload", ticker], env: envArgs(positionals) });
const target = gatewayTarget(gw, g.adminKey);
try {
  await warmUp(target);
  process.kill(gw.child.pid, "SIGUSR1");
  for (let round = 0; round < 8; round++) await runJson(target, 20_000, 32);
  await runStreams(target, 1_536, 128);
  process.kill(gw.child.pid, "SIGUSR2");
  const deadline = performance.now() + 10_000;
  while (!gw.child.output().includes("@@stalls") && performance.now() < deadline) await Bun.sleep(10);
  const stalls = JSON.parse(/@@stalls (\[.*\])/.exec(gw.child.output())?.[1] ?? "null") as number[] | null;
  if (!stalls) throw new Error(`the ticker did not answer:\n${gw.child.output().slice(-2000)}`);
  console.log(
    `event-loop stalls over ${o.threshold} ms after the warm-up: ${stalls.length}${stalls.length ? `, largest ${Math.max(...stalls)} ms` : ""}`,
  );
  if (stalls.length) console.log(`  ${stalls.join(", ")} ms`);
} finally {
  await Promise.all([gw.child.stop(), mock.child.stop()]);
  rmSync(dir, { recursive: true, force: true });
}
