// The three targets' processes: the mock upstream (core 0, with the load generator), the bare proxy
// and Switchyard (core 1); plus the compiled binary's start-up time.
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { STREAM_CHUNKS } from "./mock-upstream";
import { freePort, pinned, spawnChild, waitForHttp, waitForOutput, type Child } from "./procs";
import type { Target, TargetName } from "./load";
import { KINDS, type StreamKind } from "./stream-kinds";

export const ROOT = join(import.meta.dir, "..");
const BUN = process.execPath;

export interface Upstream {
  child: Child;
  url: string;
}

export async function startMock(ttftMs: number, gapMs: number): Promise<Upstream> {
  const child = spawnChild("mock", pinned([BUN, join(ROOT, "bench/mock-upstream.ts")], 0), {
    PORT: "0",
    TTFT_MS: String(ttftMs),
    GAP_MS: String(gapMs),
    // The count the load generator checks streams against (CHUNKS in this process's environment).
    CHUNKS: String(STREAM_CHUNKS),
  });
  const port = await waitForOutput(child, /"port":(\d+)/);
  return { child, url: `http://127.0.0.1:${port}` };
}

/** Bun's fetch sends at most 256 requests at once unless this is set at start: past 256 streams the bare proxy would queue them. */
const FETCH_MAX_REQUESTS = { BUN_CONFIG_MAX_HTTP_REQUESTS: "4096" };

export async function startBareProxy(upstream: string, env: Record<string, string> = {}): Promise<Upstream> {
  const child = spawnChild("bare proxy", pinned([BUN, join(ROOT, "bench/bare-proxy.ts")], 1), {
    PORT: "0",
    UPSTREAM: upstream,
    ...FETCH_MAX_REQUESTS,
    ...env,
  });
  const port = await waitForOutput(child, /"port":(\d+)/);
  return { child, url: `http://127.0.0.1:${port}` };
}

/**
 * bench/minimal-proxy.ts, pinned to core 1: the cheapest JS proxy that reads every SSE event, on fetch or
 * the socket client; `env` adds variables (BURN_US, a profiler's switches).
 */
export async function startMinimal(upstream: string, client: "fetch" | "sockets", env: Record<string, string> = {}): Promise<Upstream> {
  const cmd = pinned([BUN, join(ROOT, "bench/minimal-proxy.ts")], 1);
  const child = spawnChild(`minimal proxy (${client})`, cmd, {
    PORT: "0",
    UPSTREAM: upstream,
    CLIENT: client,
    ...FETCH_MAX_REQUESTS,
    ...env,
  });
  return { child, url: `http://127.0.0.1:${await waitForOutput(child, /"port":(\d+)/)}` };
}

const BASE62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

export function adminKey(): string {
  const bytes = randomBytes(40);
  let s = "ak_";
  for (const b of bytes) s += BASE62[b % 62];
  return s;
}

/**
 * A realistic configuration: per stream kind (stream-kinds.ts) one model with two providers (same mock,
 * different keys): chat on the OpenAI protocol, Messages on the Anthropic adapter, Responses on an OpenAI
 * provider that serves the Responses API; generous limits.
 */
export function writeConfig(dir: string, mockUrl: string): string {
  const route = (provider: string, input: number, output: number, extra: Record<string, unknown> = {}) => ({
    provider,
    provider_model_id: "m",
    input_price: input,
    output_price: output,
    ...extra,
  });
  const both = { endpoints: ["chat_completions", "responses"] };
  const responses = { adapter: "openai", base_url: `${mockUrl}/v1`, supports_responses: true };
  const config = {
    catalog: "replace",
    providers: {
      m1: { adapter: "openai", base_url: `${mockUrl}/v1`, api_key: "sk-bench-1" },
      m2: { adapter: "openai", base_url: `${mockUrl}/v1`, api_key: "sk-bench-2" },
      a1: { adapter: "anthropic", base_url: mockUrl, api_key: "sk-ant-bench-1" },
      a2: { adapter: "anthropic", base_url: mockUrl, api_key: "sk-ant-bench-2" },
      r1: { ...responses, api_key: "sk-bench-r1" },
      r2: { ...responses, api_key: "sk-bench-r2" },
    },
    models: {
      [KINDS.chat.model]: { routes: [route("m1", 1, 2), route("m2", 1.5, 2.5)] },
      [KINDS.messages.model]: { routes: [route("a1", 1, 2), route("a2", 1.5, 2.5)] },
      [KINDS.responses.model]: { routes: [route("r1", 1, 2, both), route("r2", 1.5, 2.5, both)] },
    },
    // The benchmark measures cost per request, not 429s: limits stay on, set far above the load.
    limits: { inference: { per_minute: 10_000_000 } },
  };
  const path = join(dir, "switchyard.json");
  writeFileSync(path, JSON.stringify(config, null, 2));
  return path;
}

export interface GatewayEnv {
  dir: string;
  configPath: string;
  adminKey: string;
}

export function gatewayEnv(g: GatewayEnv, port: number, db: string): Record<string, string> {
  return {
    PORT: String(port),
    HOST: "127.0.0.1",
    DATABASE_URL: `sqlite:${join(g.dir, db)}`,
    SWITCHYARD_ADMIN_KEY: g.adminKey,
    SWITCHYARD_LOG_LEVEL: "warn",
    SWITCHYARD_CONFIG: g.configPath,
  };
}

export interface GatewayOptions {
  /** Extra bun flags such as --cpu-prof (source runs only). */
  bunFlags?: string[];
  /** The compiled binary to run instead of the source. */
  binary?: string;
  /** Extra environment (A/B runs). */
  env?: Record<string, string>;
  /** Another checkout to run the source of (A/B runs of two commits). */
  root?: string;
  /** SQLite file name in the scratch directory (two gateways side by side need two). */
  db?: string;
}

/** Switchyard on core 1: the compiled binary when given (what self-hosters run), else `bun src/main.ts serve`. */
export async function startGateway(g: GatewayEnv, o: GatewayOptions = {}): Promise<Upstream> {
  const port = freePort();
  const root = o.root ?? ROOT;
  const cmd = o.binary ? [o.binary, "serve"] : [BUN, ...(o.bunFlags ?? []), join(root, "src/main.ts"), "serve"];
  const env = { ...gatewayEnv(g, port, o.db ?? "bench.db"), ...o.env };
  const child = spawnChild("switchyard", pinned(cmd, 1), env, { cwd: root });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/readyz`, 200, 30_000, 20).catch((err: unknown) => {
    throw new Error(`${String(err)}\n${child.output()}`);
  });
  return { child, url };
}

/** `bun run build` into the scratch directory (so a concurrently used dist/ is left alone). */
export async function buildBinary(dir: string): Promise<{ path: string; ms: number }> {
  const path = join(dir, "switchyard");
  const t0 = performance.now();
  const p = Bun.spawn([BUN, "run", "build"], {
    cwd: ROOT,
    env: { ...process.env, SWITCHYARD_BUILD_OUT: path },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`bun run build failed (${code}): ${out}${err}`);
  return { path, ms: performance.now() - t0 };
}

/** Milliseconds from exec of the binary to the first /readyz 200 (fresh database: migrations included). */
export async function timeToReady(g: GatewayEnv, binary: string, db: string): Promise<number> {
  const port = freePort();
  const t0 = performance.now();
  const child = spawnChild("switchyard binary", pinned([binary, "serve"], 1), gatewayEnv(g, port, db));
  try {
    await waitForHttp(`http://127.0.0.1:${port}/readyz`, 200, 30_000, 2);
    return performance.now() - t0;
  } catch (err) {
    throw new Error(`${String(err)}\n${child.output()}`);
  } finally {
    await child.stop();
  }
}

/**
 * A load target under one stream kind: the kind's URL at `base`, its headers with `key` (a gateway's:
 * routing metadata expected) or without (the mock, the proxies); `pid` is charged the CPU (null: none).
 */
export function kindTarget(name: TargetName, base: string, pid: number | null, key: string | null, kind: StreamKind = "chat"): Target {
  const k = KINDS[kind];
  return {
    name,
    url: base + k.path,
    headers: { "content-type": "application/json", ...k.headers(key) },
    pid,
    expectRouting: key !== null,
    kind,
  };
}

/** The load target for a started gateway: its chat completions URL with the admin key, routing metadata expected. */
export function gatewayTarget(up: Upstream, adminKey: string, kind: StreamKind = "chat"): Target {
  return kindTarget("switchyard", up.url, up.child.pid, adminKey, kind);
}

/** A started process and the load target that sends to it. */
export interface Started {
  name: string;
  up: Upstream;
  target: Target;
}

/**
 * The probes' usual three, each pinned to core 1: the bare proxy, the minimal JS proxy on the socket
 * client and Switchyard (`o`: its database file and environment), with their load targets.
 */
export async function startTrio(mockUrl: string, g: GatewayEnv, o: GatewayOptions = {}): Promise<Started[]> {
  const target = (up: Upstream, gateway: boolean): Target =>
    gateway
      ? gatewayTarget(up, g.adminKey)
      : {
          name: "proxy",
          url: `${up.url}/v1/chat/completions`,
          headers: { "content-type": "application/json" },
          pid: up.child.pid,
          expectRouting: false,
        };
  const bare = await startBareProxy(mockUrl);
  const minimal = await startMinimal(mockUrl, "sockets");
  const gateway = await startGateway(g, o);
  return [
    { name: "bare proxy", up: bare, target: target(bare, false) },
    { name: "minimal JS proxy, sockets", up: minimal, target: target(minimal, false) },
    { name: "Switchyard", up: gateway, target: target(gateway, true) },
  ];
}
