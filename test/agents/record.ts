// Records what the installed agent CLIs send when pointed straight at the mock upstream (no gateway) and
// writes it, with keys and machine-specific values taken out and long texts shortened, to
// test/fixtures/agents/*-request.json. Run after upgrading the CLIs: `bun test/agents/record.ts`.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentHome, agentsMissing, CODEX_MODEL, runClaude, runCodex, type AgentRun } from "../support/agent-clis";
import { startMockUpstream, type RecordedRequest } from "../support/mock-upstream";
import { ROOT } from "../support/spawn";

const OUT = join(ROOT, "test", "fixtures", "agents");
const DROPPED_HEADERS = new Set(["host", "content-length"]);
const SECRET_HEADERS = new Set(["x-api-key", "authorization"]);

/** Long prompts and schemas shortened so a reader sees the request's shape; everything else as sent. */
function shorten(v: unknown, key = ""): unknown {
  if (typeof v === "string") return v.length > 400 ? `${v.slice(0, 400)}… [${v.length - 400} more characters]` : v;
  if (Array.isArray(v)) return v.map((x) => shorten(x));
  if (v === null || typeof v !== "object") return v;
  if ((key === "input_schema" || key === "parameters") && JSON.stringify(v).length > 400) return { "…": "schema elided" };
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shorten(x, k)]));
}

function recording(req: RecordedRequest, home: string, note: string): string {
  const headers = Object.fromEntries(
    Object.entries(req.headers)
      .filter(([k]) => !DROPPED_HEADERS.has(k))
      .map(([k, v]) => [k, SECRET_HEADERS.has(k) ? "<test key>" : v]),
  );
  const text = JSON.stringify({ _note: note, method: req.method, path: req.path + req.search, headers, body: shorten(req.body) }, null, 2);
  return text.replaceAll(home, "/home/agent") + "\n";
}

function check(run: AgentRun, what: string): void {
  if (run.code !== 0) throw new Error(`${what} exited ${run.code}${run.timedOut ? " (timed out)" : ""}: ${run.stderr}`);
}

const missing = agentsMissing();
if (missing) throw new Error(missing);
const mock = await startMockUpstream();
try {
  const claude = [
    ["claude-sonnet-4-5", "claude-code-request.json", "budgeted thinking"],
    ["claude-opus-5-5", "claude-code-request-opus-5-5.json", "adaptive thinking, output_config.effort and role system turns"],
  ] as const;
  for (const [model, file, what] of claude) {
    const home = agentHome("record");
    const run = await runClaude(home, { baseUrl: mock.baseUrl("anthropic", model), apiKey: "sk-ant-record", model, prompt: "say hi" });
    check(run, `claude --model ${model}`);
    const sent = mock.requests.filter((r) => r.provider === model);
    const note = `Claude Code's first request for \`claude -p "say hi" --model ${model}\` (${what}); ${sent.length} request(s) in all.`;
    writeFileSync(join(OUT, file), recording(sent[0]!, home.home, note));
    home.cleanup();
  }
  const home = agentHome("record");
  const run = await runCodex(home, { baseUrl: mock.baseUrl("openai", "codex"), apiKey: "sk-record", model: CODEX_MODEL, prompt: "say hi" });
  check(run, "codex exec");
  const sent = mock.requests.filter((r) => r.provider === "codex");
  const note = `Codex's first request for \`codex exec "say hi"\` with model ${CODEX_MODEL} (wire_api "responses"); ${sent.length} request(s) in all.`;
  writeFileSync(join(OUT, "codex-request.json"), recording(sent[0]!, home.home, note));
  home.cleanup();
} finally {
  await mock.stop();
}
