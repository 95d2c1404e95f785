// loadConfig(): the only reader of the environment. Env vars and --flags are validated with TypeBox,
// the config file is parsed and validated, and one immutable Config comes out.
import { Value } from "@sinclair/typebox/value";
import type { TSchema } from "@sinclair/typebox";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { decodeMasterKey } from "../platform/master-key";
import { tokenizeArgs } from "./args";
import { EnvSchema, FileConfigSchema, type Env, type FileConfig } from "./schema";

export class ConfigError extends Error {}

export interface RoutingTuning {
  /** Largest share of requests the router may spend measuring a route other than its best (default 0.05). */
  exploreShare: number;
  /** A sample's weight halves after this long, so a route left unmeasured drifts back to uncertainty (default 10 min). */
  sampleHalfLifeMs: number;
  /** How long a conversation stays on the route that holds its prompt cache (default 10 min; 0: never sticky). */
  stickyTtlMs: number;
}

export const DEFAULT_ROUTING_TUNING: RoutingTuning = Object.freeze({ exploreShare: 0.05, sampleHalfLifeMs: 600_000, stickyTtlMs: 600_000 });

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  redisUrl?: string;
  redisPrefix: string;
  configPath?: string;
  adminKey?: string;
  masterKey?: string;
  logLevel: Env["SWITCHYARD_LOG_LEVEL"];
  trustedProxies: string[];
  /** `off`: plain Bun, none of the speed or memory tuning (platform/tuning/tuning.ts); the two knobs below are then 0 and fetch. */
  tuning: "on" | "off";
  /** The tuning knobs set explicitly that `tuning: "off"` overrides (logged once at start); empty otherwise. */
  tuningIgnored: readonly string[];
  /** `serve` runs a full collection when the JS heap passes its live size by this many MB (platform/tuning/memory-governor.ts); 0: never. */
  heapLimitMb: number;
  /** How upstream requests are sent: the gateway's own HTTP/1.1 client on Bun sockets (default), or Bun's fetch. */
  upstreamClient: "sockets" | "fetch";
  /** BUN_CONFIG_MAX_HTTP_REQUESTS as the process started with it: how many requests Bun's fetch sends at once (Bun's default 256 when unset or invalid). */
  fetchMaxRequests: { value: number; set: boolean };
  /** HTTPS_PROXY / HTTP_PROXY / NO_PROXY (the lowercase spelling wins when both are set); undefined when no proxy is. */
  upstreamProxy?: Readonly<{ httpsProxy?: string; httpProxy?: string; noProxy?: string }>;
  /** Folder for generated files (master key): the SQLite file's folder, else ./data. */
  dataDir: string;
  file: FileConfig;
  /** The largest request body accepted, in bytes (config file `max_request_body_mb`; 20 MB and 1 MB by default). */
  maxRequestBodyBytes: { inference: number; management: number };
  /** How long adding a BYOK key waits for the provider's validation answer, ms (config file `byok_validation_timeout_ms`; 10 s by default). */
  byokValidationTimeoutMs: number;
  /** How long the route of a Responses ID is remembered, ms (config file `response_route_ttl_hours`; 30 days by default). */
  responseRouteTtlMs: number;
  /** The Responses store (config file `responses`): on unless `store` is false; rows expire after ttlMs; larger ones are not kept. */
  responsesStore: { enabled: boolean; ttlMs: number; maxBytes: number };
  /** GET /metrics (observability/metrics): served without a key when `public`; a workspace label when `workspaceLabel`. */
  metrics: { public: boolean; workspaceLabel: boolean };
  /** Traces (observability/tracing): the OTEL_* variables as set (on when an OTLP endpoint is), and config `tracing.record_content`. */
  tracing: { otelEnv: Readonly<Record<string, string>>; recordContent: boolean };
  /** The adaptive router's tuning (config file `routing`): see routing/health.ts and docs/routing.md. */
  routing: RoutingTuning;
  /** Every `*_API_KEY` variable of the environment, for provider platform credentials. */
  credentialEnv: Record<string, string>;
}

const DEFAULTS: Record<string, string> = {
  PORT: "8080",
  HOST: "0.0.0.0",
  DATABASE_URL: "sqlite:./data/switchyard.db",
  REDIS_PREFIX: "switchyard:",
  SWITCHYARD_LOG_LEVEL: "info",
  SWITCHYARD_TUNING: "on",
  SWITCHYARD_HEAP_LIMIT_MB: "3",
  SWITCHYARD_UPSTREAM_CLIENT: "sockets",
};

/** A provider that has not answered a key check in 10 s is taken as unavailable (502, nothing saved). */
export const DEFAULT_BYOK_VALIDATION_TIMEOUT_MS = 10_000;

const MB = 1024 * 1024;
const HOUR_MS = 3_600_000;
/** OpenAI keeps a stored response 30 days: a follow-up may name one that old. */
const DEFAULT_RESPONSE_ROUTE_TTL_HOURS = 720;
/** The largest Responses conversation kept (input and response JSON together): 4 MiB. */
const DEFAULT_STORE_MAX_BYTES = 4 * 1024 * 1024;

const ENV_KEYS = Object.keys(EnvSchema.properties) as (keyof Env)[];

/** The knobs of single tuning pieces, which SWITCHYARD_TUNING=off overrides. */
const TUNING_KNOBS = ["SWITCHYARD_HEAP_LIMIT_MB", "SWITCHYARD_UPSTREAM_CLIENT"] as const;

/**
 * SWITCHYARD_TUNING alone, for the entry's re-execution before the rest of the configuration is read
 * (src/main.ts); undefined for a value loadConfig refuses.
 */
export function tuningSwitch(env: Record<string, string | undefined>, envFlags: Record<string, string> = {}): "on" | "off" | undefined {
  const v = envFlags.SWITCHYARD_TUNING ?? env.SWITCHYARD_TUNING;
  if (!v) return "on";
  return v === "on" || v === "off" ? v : undefined;
}

const PROXY_KEYS = new Set<string>(["HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY"]);

/**
 * A proxy variable as curl and wget read it: the lowercase spelling first (a CGI server may set
 * HTTP_PROXY from a request's Proxy header), and a proxy without a scheme taken as http://.
 */
function proxyVariable(env: Record<string, string | undefined>, flags: Record<string, string>, k: string): string | undefined {
  const v = (flags[k] ?? (env[k.toLowerCase()] || env[k]))?.trim();
  if (!v || k === "NO_PROXY") return v;
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(v) ? v : `http://${v}`;
}

/** `--database-url` → `DATABASE_URL`, `--admin-key` → `SWITCHYARD_ADMIN_KEY` (both spellings accepted). */
function flagToEnv(flag: string): string | undefined {
  const upper = flag.replace(/-/g, "_").toUpperCase();
  if ((ENV_KEYS as string[]).includes(upper)) return upper;
  if ((ENV_KEYS as string[]).includes(`SWITCHYARD_${upper}`)) return `SWITCHYARD_${upper}`;
  return undefined;
}

export interface ParsedArgs {
  positionals: string[];
  /** Flags that are not configuration (command options such as --name, --json, --no-migrate). */
  options: Record<string, string | true>;
  /** Flags that set configuration variables. */
  envFlags: Record<string, string>;
}

export function parseArgs(argv: string[]): ParsedArgs {
  const { positionals, flags } = tokenizeArgs(argv);
  const out: ParsedArgs = { positionals, options: {}, envFlags: {} };
  for (const [name, value] of flags) {
    const envName = flagToEnv(name);
    if (envName && value !== true) out.envFlags[envName] = value;
    else out.options[name] = value;
  }
  return out;
}

function firstError(schema: TSchema, value: unknown): { path: string; message: string } | undefined {
  const err = Value.Errors(schema, value).First();
  return err ? { path: err.path, message: err.message } : undefined;
}

export function loadConfig(env: Record<string, string | undefined>, envFlags: Record<string, string> = {}): Config {
  const raw: Record<string, unknown> = {};
  for (const k of ENV_KEYS) {
    const v = (PROXY_KEYS.has(k) ? proxyVariable(env, envFlags, k) : (envFlags[k] ?? env[k])) ?? DEFAULTS[k];
    if (v !== undefined && v !== "") raw[k] = v;
  }
  // Integer variables: digits become numbers; anything else stays a string and fails the schema below.
  for (const k of ["PORT", "SWITCHYARD_HEAP_LIMIT_MB"] as const) {
    const v = raw[k];
    if (typeof v === "string" && /^\d+$/.test(v)) raw[k] = Number(v);
  }
  for (const k of ENV_KEYS) {
    const schema = EnvSchema.properties[k] as TSchema;
    if (raw[k] === undefined) continue;
    const e = firstError(schema, raw[k]);
    if (e) {
      // Secrets are never echoed; a URL's user:password part is masked.
      const shown =
        k === "SWITCHYARD_ADMIN_KEY" || k === "SWITCHYARD_MASTER_KEY"
          ? "(hidden)"
          : JSON.stringify(raw[k]).replace(/\/\/[^/@"]*@/, "//***@");
      throw new ConfigError(`${k} must be ${schema.description ?? e.message}, got ${shown}`);
    }
  }
  const e = raw as unknown as Env;
  const plain = e.SWITCHYARD_TUNING === "off";
  if (e.SWITCHYARD_MASTER_KEY && !decodeMasterKey(e.SWITCHYARD_MASTER_KEY)) {
    throw new ConfigError("SWITCHYARD_MASTER_KEY must be 32 bytes, base64 or hex, got (hidden)");
  }
  const file = e.SWITCHYARD_CONFIG ? readConfigFile(e.SWITCHYARD_CONFIG) : {};
  const credentialEnv: Record<string, string> = {};
  // Platform credentials: every *_API_KEY variable, plus any variable the config file names in api_key_env.
  const named = new Set(Object.values(file.providers ?? {}).flatMap((p) => (p.api_key_env ? [p.api_key_env] : [])));
  for (const [k, v] of Object.entries(env)) if ((k.endsWith("_API_KEY") || named.has(k)) && v) credentialEnv[k] = v;
  const dbUrl = e.DATABASE_URL;
  const dataDir = dbUrl.startsWith("sqlite:") && dbUrl !== "sqlite::memory:" ? dirname(resolve(dbUrl.slice(7))) : resolve("./data");
  const trusted = [
    ...(e.SWITCHYARD_TRUSTED_PROXIES?.split(",")
      .map((s) => s.trim())
      .filter(Boolean) ?? []),
    ...(file.trusted_proxies ?? []),
  ];
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    databaseUrl: dbUrl,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    configPath: e.SWITCHYARD_CONFIG,
    adminKey: e.SWITCHYARD_ADMIN_KEY,
    masterKey: e.SWITCHYARD_MASTER_KEY,
    logLevel: e.SWITCHYARD_LOG_LEVEL,
    trustedProxies: trusted,
    tuning: plain ? "off" : "on",
    tuningIgnored: Object.freeze(plain ? TUNING_KNOBS.filter((k) => (envFlags[k] ?? env[k] ?? "") !== "") : []),
    heapLimitMb: plain ? 0 : e.SWITCHYARD_HEAP_LIMIT_MB,
    upstreamClient: plain ? "fetch" : e.SWITCHYARD_UPSTREAM_CLIENT,
    fetchMaxRequests: fetchMaxRequests(env.BUN_CONFIG_MAX_HTTP_REQUESTS),
    ...(e.HTTPS_PROXY || e.HTTP_PROXY
      ? {
          upstreamProxy: Object.freeze({
            ...(e.HTTPS_PROXY ? { httpsProxy: e.HTTPS_PROXY } : {}),
            ...(e.HTTP_PROXY ? { httpProxy: e.HTTP_PROXY } : {}),
            ...(e.NO_PROXY ? { noProxy: e.NO_PROXY } : {}),
          }),
        }
      : {}),
    dataDir,
    file,
    maxRequestBodyBytes: Object.freeze({
      inference: Math.floor((file.max_request_body_mb?.inference ?? 20) * MB),
      management: Math.floor((file.max_request_body_mb?.management ?? 1) * MB),
    }),
    byokValidationTimeoutMs: file.byok_validation_timeout_ms ?? DEFAULT_BYOK_VALIDATION_TIMEOUT_MS,
    responseRouteTtlMs: Math.floor((file.response_route_ttl_hours ?? DEFAULT_RESPONSE_ROUTE_TTL_HOURS) * HOUR_MS),
    responsesStore: Object.freeze({
      enabled: file.responses?.store !== false,
      ttlMs: Math.floor((file.responses?.store_ttl_hours ?? DEFAULT_RESPONSE_ROUTE_TTL_HOURS) * HOUR_MS),
      maxBytes: file.responses?.store_max_bytes ?? DEFAULT_STORE_MAX_BYTES,
    }),
    tracing: Object.freeze({
      otelEnv: Object.freeze(
        Object.fromEntries(Object.entries(env).filter((kv): kv is [string, string] => kv[0].startsWith("OTEL_") && !!kv[1])),
      ),
      recordContent: file.tracing?.record_content === true,
    }),
    metrics: Object.freeze({
      public: e.SWITCHYARD_METRICS_PUBLIC === "1" || file.metrics?.public === true,
      workspaceLabel: file.metrics?.workspace_label === true,
    }),
    routing: Object.freeze({
      exploreShare: file.routing?.explore_share ?? DEFAULT_ROUTING_TUNING.exploreShare,
      sampleHalfLifeMs: (file.routing?.sample_half_life_s ?? DEFAULT_ROUTING_TUNING.sampleHalfLifeMs / 1000) * 1000,
      stickyTtlMs: (file.routing?.sticky_ttl_s ?? DEFAULT_ROUTING_TUNING.stickyTtlMs / 1000) * 1000,
    }),
    credentialEnv,
  });
}

/** Reads and validates the JSON config file; errors name the file, the field path and the reason. */
export function readConfigFile(path: string): FileConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new ConfigError(`SWITCHYARD_CONFIG: cannot read ${path}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${path}: not valid JSON: ${(err as Error).message}`);
  }
  const e = firstError(FileConfigSchema, json);
  if (e) throw new ConfigError(`${path}: ${e.path || "/"}: ${e.message}`);
  return json as FileConfig;
}

/** Bun reads the variable at start and keeps 256 for anything but an integer from 1 to 65535. */
function fetchMaxRequests(raw: string | undefined): { value: number; set: boolean } {
  const n = raw !== undefined && /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  return n >= 1 && n <= 65_535 ? { value: n, set: true } : { value: 256, set: false };
}
