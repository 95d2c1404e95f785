// `bun run bench:routing`: the adaptive router in a simulated market (issue 54's "How it is measured").
// Runs every scenario on a simulated clock with one seed, prints a table per scenario and the summary with
// the targets' verdicts, and writes the summary into bench/README.md between its markers (--no-write: don't).
// Options: --seed N (default 54), --only NAME[,NAME] (no write), --requests N (scored per scenario).
import { join } from "node:path";
import { score } from "./metrics";
import { summaryBlock, scenarioTable, summaryTable, verdictList, writeBlock } from "./report";
import { SCENARIOS, WARMUP } from "./scenarios";
import { simulate } from "./sim";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const seed = Number(arg("--seed") ?? 54);
const only = arg("--only")?.split(",");
const requestsArg = arg("--requests");
const requests = requestsArg === undefined ? undefined : Number(requestsArg);
const write = !process.argv.includes("--no-write") && only === undefined && requests === undefined;

const started = performance.now();
const results = SCENARIOS.filter((s) => only === undefined || only.includes(s.name)).map((s) => score(s, simulate(s, { seed, requests })));
for (const m of results) console.log(`${scenarioTable(m)}\n`);
console.log("### summary\n");
console.log(summaryTable(results));
console.log(`\n${verdictList(results)}`);
console.log(`\n(${((performance.now() - started) / 1000).toFixed(1)} s)`);

if (write) {
  const git = (...args: string[]) =>
    Bun.spawnSync(["git", ...args])
      .stdout.toString()
      .trim();
  const dirty =
    git("status", "--porcelain", "--", "src/routing", "src/catalog") !== ""
      ? " with uncommitted changes in src/routing or src/catalog"
      : "";
  const commit = `${git("rev-parse", "--short", "HEAD") || "unknown"}${dirty}`;
  const header = [
    "`bun run bench:routing` (bench/routing/, under a second) puts the router in a simulated market of seven",
    `providers on a simulated clock: ${results[0]?.scored ?? 0} requests per scenario after ${WARMUP} of warm-up, seed ${seed}, at ${commit}.`,
    "Ratios compare what the router served with an oracle that knows the true medians and failure windows",
    "(TTFT: lower is better; tok/s: higher; score: the strategy's own score of the route on the true figures);",
    "switching counts the requests after a change until the router's first choice is the oracle's for 10 in a row.",
  ].join("\n");
  writeBlock(join(import.meta.dir, "..", "README.md"), summaryBlock(results, header));
  console.log("bench/README.md: routing-bench block written");
}
