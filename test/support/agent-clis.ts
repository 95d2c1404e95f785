// The real coding-agent CLIs (Claude Code, Codex) as installed from npm into test/agents/, run as a user
// would: the native binary each npm package ships for this platform, a throwaway HOME, no telemetry or
// auto-update traffic, and a hard timeout so a CLI that waits on something never hangs the suite.
import { existsSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gatewayConfig } from "./gateway";
import type { MockUpstream } from "./mock-upstream";
import type { InProcessServer } from "./server";
import { ROOT } from "./spawn";

export const AGENTS_DIR = join(ROOT, "test", "agents");
const MODULES = join(AGENTS_DIR, "node_modules");

/** Why the agent tests cannot run here, or null when both CLIs are installed. */
export function agentsMissing(): string | null {
  if (!existsSync(MODULES)) return `the agent CLIs are not installed: run \`npm ci --prefix test/agents\` (${MODULES} is missing)`;
  return null;
}

// The platform packages are named after Node's own platform and arch names (linux-x64, darwin-arm64…).
const { platform, arch } = process;

/** Claude Code's native binary: the platform package its wrapper's postinstall would copy over bin/claude.exe. */
export function claudeBinary(): string {
  const names = [`claude-code-${platform}-${arch}`, `claude-code-${platform}-${arch}-musl`];
  for (const name of names) {
    const bin = join(MODULES, "@anthropic-ai", name, platform === "win32" ? "claude.exe" : "claude");
    if (existsSync(bin)) return bin;
  }
  throw new Error(`no Claude Code binary for ${platform}-${arch} under ${MODULES}/@anthropic-ai (looked for ${names.join(", ")})`);
}

export interface CodexInstall {
  bin: string;
  /** The folder of helper tools (rg) the npm wrapper puts on PATH. */
  pathDir: string | null;
  packageRoot: string;
}

/** Codex's native binary, read from the layout file (codex-package.json) of its platform package's vendor folder. */
export function codexInstall(): CodexInstall {
  const vendor = join(MODULES, "@openai", `codex-${platform}-${arch}`, "vendor");
  if (!existsSync(vendor)) throw new Error(`no Codex platform package for ${platform}-${arch}: ${vendor} is missing`);
  for (const triple of readdirSync(vendor)) {
    const layoutFile = join(vendor, triple, "codex-package.json");
    if (!existsSync(layoutFile)) continue;
    const layout = JSON.parse(readFileSync(layoutFile, "utf8")) as { entrypoint?: string; pathDir?: string };
    const bin = join(vendor, triple, layout.entrypoint ?? "bin/codex");
    if (!existsSync(bin)) continue;
    return { bin, pathDir: layout.pathDir ? join(vendor, triple, layout.pathDir) : null, packageRoot: join(MODULES, "@openai", "codex") };
  }
  throw new Error(`no Codex binary under ${vendor}`);
}

export interface AgentRun {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** A throwaway HOME (the CLIs write their state there) and a working folder inside it. */
export interface AgentHome {
  home: string;
  cwd: string;
  cleanup(): void;
}

export function agentHome(prefix: string): AgentHome {
  const home = mkdtempSync(join(tmpdir(), `switchyard-${prefix}-`));
  const cwd = join(home, "work");
  mkdirSync(cwd);
  return { home, cwd, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}

// A CLI gets none of the test runner's environment but PATH and TMPDIR, so a developer's real keys or
// settings never reach a run; these keep it from calling home.
const QUIET = { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_TELEMETRY: "1", DISABLE_AUTOUPDATER: "1", NO_COLOR: "1" };

/** Runs a CLI to completion, killed (and reported as timed out) after `timeoutMs`. */
export async function runAgent(
  cmd: string[],
  opts: { home: AgentHome; env: Record<string, string>; timeoutMs: number },
): Promise<AgentRun> {
  const proc = Bun.spawn(cmd, {
    cwd: opts.home.cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: opts.home.home, TMPDIR: tmpdir(), ...QUIET, ...opts.env },
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    proc.kill("SIGKILL");
  }, opts.timeoutMs);
  try {
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { code: timedOut ? null : code, stdout, stderr, timedOut };
  } finally {
    clearTimeout(timer);
  }
}

export interface ClaudeOptions {
  /** ANTHROPIC_BASE_URL: the root the CLI appends `/v1/messages` to. */
  baseUrl: string;
  apiKey: string;
  model: string;
  prompt: string;
  args?: string[];
  timeoutMs?: number;
}

/** `claude -p` with JSON output; no permission prompt (tools not allowed up front are refused, not asked about). */
export function runClaude(home: AgentHome, o: ClaudeOptions): Promise<AgentRun> {
  const cmd = [
    claudeBinary(),
    "-p",
    o.prompt,
    "--model",
    o.model,
    "--output-format",
    "json",
    "--permission-mode",
    "dontAsk",
    ...(o.args ?? []),
  ];
  const env = { ANTHROPIC_BASE_URL: o.baseUrl, ANTHROPIC_API_KEY: o.apiKey, CLAUDE_CODE_MAX_RETRIES: "0" };
  return runAgent(cmd, { home, env, timeoutMs: o.timeoutMs ?? 45_000 });
}

export interface CodexOptions {
  /** The provider's base_url: the root the CLI appends `/responses` to (ends in /v1). */
  baseUrl: string;
  apiKey: string;
  model: string;
  prompt: string;
  args?: string[];
  timeoutMs?: number;
}

/** Writes $HOME/.codex/config.toml naming one Responses-API provider at `baseUrl`, with retries off so a failure shows at once. */
export function writeCodexConfig(home: AgentHome, baseUrl: string, model: string): void {
  const dir = join(home.home, ".codex");
  mkdirSync(dir, { recursive: true });
  const toml = [
    `model_provider = "switchyard"`,
    `model = ${JSON.stringify(model)}`,
    ``,
    `[model_providers.switchyard]`,
    `name = "Switchyard"`,
    `base_url = ${JSON.stringify(baseUrl)}`,
    `env_key = "SWITCHYARD_API_KEY"`,
    `wire_api = "responses"`,
    `request_max_retries = 0`,
    `stream_max_retries = 0`,
    ``,
  ].join("\n");
  writeFileSync(join(dir, "config.toml"), toml);
}

/** `codex exec --json` in a read-only sandbox, outside a git repository. */
export function runCodex(home: AgentHome, o: CodexOptions): Promise<AgentRun> {
  writeCodexConfig(home, o.baseUrl, o.model);
  const install = codexInstall();
  const cmd = [install.bin, "exec", "--skip-git-repo-check", "--json", "--sandbox", "read-only", ...(o.args ?? []), o.prompt];
  const path = [install.pathDir, process.env.PATH ?? "/usr/bin:/bin"].filter((p) => p !== null).join(":");
  // What the npm wrapper (bin/codex.js) sets before it execs the same binary.
  const env = { PATH: path, SWITCHYARD_API_KEY: o.apiKey, CODEX_MANAGED_BY_NPM: "1", CODEX_MANAGED_PACKAGE_ROOT: install.packageRoot };
  return runAgent(cmd, { home, env, timeoutMs: o.timeoutMs ?? 45_000 });
}

/** The lines of `codex exec --json` output, parsed (non-JSON lines dropped). */
export function codexEvents(stdout: string): { type: string; item?: { type?: string; text?: string } }[] {
  const out: { type: string; item?: { type?: string; text?: string } }[] = [];
  for (const line of stdout.split("\n")) {
    try {
      out.push(JSON.parse(line));
    } catch {
      // Not an event line.
    }
  }
  return out;
}

/**
 * The model ids the CLIs are asked for → the upstream ids their routes call them by. Claude Code shapes
 * its request by model: claude-sonnet-4-5 gets budgeted thinking; claude-opus-5-5 adaptive thinking,
 * output_config.effort, more betas and role "system" turns inside `messages`.
 */
export const CLAUDE_MODELS = { "claude-sonnet-4-5": "claude-sonnet-4-5-20250929", "claude-opus-5-5": "claude-opus-5-5-20261101" };
export const CODEX_MODEL = "gpt-5.5";
export const CODEX_UPSTREAM_MODEL = "gpt-5.5-2026-04-23";

/**
 * The test gateway's providers (beta: anthropic, delta: openai speaking the Responses API) with a catalog
 * of the two models the agents ask for by their real ids (as aliases: the CLIs shape requests by model
 * name), and limits as large as the agents' own so no field is clamped on the way.
 */
export function agentGatewayConfig(mock: MockUpstream): Record<string, unknown> {
  const route = (provider: string, id: string, extra: Record<string, unknown>) => ({
    provider,
    provider_model_id: id,
    input_price: 3,
    output_price: 15,
    context_window: 400_000,
    max_output_tokens: 128_000,
    ...extra,
  });
  const capabilities = { supports_tools: true, supports_streaming: true, supports_reasoning: true, supports_prompt_caching: true };
  const config = gatewayConfig(mock, {
    models: {
      ...Object.fromEntries(
        Object.entries(CLAUDE_MODELS).map(([id, upstream]) => [
          `anthropic/${id}`,
          { aliases: [id], capabilities, routes: [route("beta", upstream, {})] },
        ]),
      ),
      "openai/gpt-5.5": {
        aliases: [CODEX_MODEL],
        capabilities,
        routes: [route("delta", CODEX_UPSTREAM_MODEL, { endpoints: ["chat_completions", "responses"] })],
      },
    },
  }) as { providers: Record<string, Record<string, unknown>> };
  // An agent's prompt is tens of kilobytes and its first turn is not quick to build on a loaded machine.
  for (const name of ["beta", "delta"])
    Object.assign(config.providers[name]!, { timeout_ms: 20_000, first_byte_timeout_ms: 15_000, idle_timeout_ms: 10_000 });
  return config;
}

/** A workspace API key as a developer would make for an agent: inference needs no scope, and a key holds at least one. */
export async function createAgentKey(s: InProcessServer, name: string): Promise<string> {
  const res = await s.fetch(`/v1/workspaces/${s.workspaceId}/api-keys`, {
    method: "POST",
    body: JSON.stringify({ name, scopes: ["usage:read"] }),
  });
  if (res.status !== 201) throw new Error(`creating an API key answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { key: string }).key;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/**
 * A request body with what differs between two runs of the same CLI taken out, so two runs can be
 * compared: object keys sorted (Codex's client_metadata is a hash map), every UUID replaced by its
 * order of first appearance, Unix-millisecond timestamps and the chunk id and wall time Codex puts in a
 * command's output zeroed, and `model` dropped.
 */
export function comparableBody(body: unknown): string {
  const sorted = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sorted);
    if (v === null || typeof v !== "object") return v;
    const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return Object.fromEntries(entries.map(([k, x]) => [k, sorted(x)]));
  };
  const { model: _model, ...rest } = body as Record<string, unknown>;
  const seen = new Map<string, number>();
  return JSON.stringify(sorted(rest), null, 1)
    .replace(UUID, (id) => `<uuid ${seen.get(id) ?? seen.set(id, seen.size).get(id)}>`)
    .replace(/(_unix_ms\\?":)\d{13}/g, "$1 0")
    .replace(/Chunk ID: [0-9a-f]+\\nWall time: [0-9.]+ seconds/g, "Chunk ID: 0\\nWall time: 0 seconds");
}
