// The one boundary around what the gateway runs only for speed or memory (docs/tuning.md): the socket
// upstream client with its paced young collections, the memory governor, and the inference POSTs served
// from Bun's route table ahead of Elysia (http/hot-routes.ts; app.ts mounts them). The start-up re-execution
// for the allocator's and Bun's settings (runtime-env.ts) is the one piece outside: it runs from the entry,
// src/main.ts, before the configuration loads. With `tuning: "off"` (SWITCHYARD_TUNING) this hands out the
// plain pieces instead: Bun's fetch upstream, the engine's own collections and every request through
// Elysia, so that a suspected tuning bug can be ruled out by one switch.
import type { Logger } from "../logger";
import { edenPacer, startMemoryGovernor, type MemoryGovernor } from "./memory-governor";
import { createUpstreamClient, type UpstreamClient } from "./upstream-client";
import type { ProxySettings } from "./http1/proxy";

// The socket client's paced young collections (edenPacer): one per 250 streamed exchanges. It was 100
// when a stream left ~40 KB of garbage; since plain chunks pass through unparsed (upstream-events.ts) a
// stream leaves less, and an eden at 100 cost more than it saved: side by side (bench/ab.ts --together,
// 2026-11-28) 250 took 0.94x the CPU per stream at 128 streams and 0.95x at 32, none at all 0.93x / 0.94x,
// while the bench's peak under 128 streams was 94.9 and 95.4 MB at 250 and 102.7 MB with none (91-95 at 100).
const EDEN_EVERY = 250;

/** What the tuning reads of the configuration (config/load.ts). */
export interface TuningSettings {
  tuning: "on" | "off";
  /** The knobs set explicitly that `off` overrides, for the start-up log line. */
  tuningIgnored: readonly string[];
  /** The memory governor's allowance above the live heap, MB; 0: no governor and no eden pacing. */
  heapLimitMb: number;
  upstreamClient: "sockets" | "fetch";
  upstreamProxy?: ProxySettings;
  /** How many requests Bun's fetch sends at once, and whether the operator (or the start-up re-execution) set it. */
  fetchMaxRequests: { value: number; set: boolean };
}

export type GovernorStats = ReturnType<MemoryGovernor["stats"]>;

export interface Tuning {
  readonly mode: "on" | "off";
  /** How the gateway sends upstream requests. */
  readonly upstream: UpstreamClient;
  /** Whether the inference POSTs are served from Bun's route table (http/hot-routes.ts) rather than through Elysia. */
  readonly hotRoutes: boolean;
  /** `serve` only (a CLI command or a test's server runs none of it): starts the memory governor, or logs that tuning is off. */
  start(): void;
  /** Stops the governor and closes the upstream client's pooled connections. */
  stop(): void;
  /** The governor's counters for the shutdown log; undefined when none ran. */
  stats(): GovernorStats | undefined;
}

export function createTuning(settings: TuningSettings, logger: Logger): Tuning {
  const on = settings.tuning === "on";
  const proxy = settings.upstreamProxy ? { proxy: settings.upstreamProxy } : {};
  // With the memory governor on, the socket client paces young collections (edenPacer: why there).
  const pacer = on && settings.heapLimitMb > 0 ? edenPacer(EDEN_EVERY) : undefined;
  const upstream = createUpstreamClient(settings.upstreamClient, {
    tuning: settings.tuning,
    ...proxy,
    ...(pacer ? { afterExchange: pacer } : {}),
  });
  let governor: MemoryGovernor | undefined;
  return {
    mode: settings.tuning,
    upstream,
    hotRoutes: on,
    start() {
      // Past this many upstream requests at once fetch queues the rest: streams wait for their first byte.
      if (upstream.kind === "fetch" && !settings.fetchMaxRequests.set) {
        logger.warn(
          `Bun's fetch sends at most ${settings.fetchMaxRequests.value} upstream requests at once; more wait in its queue. Set BUN_CONFIG_MAX_HTTP_REQUESTS (up to 65535) at start to raise it`,
        );
      }
      if (!on) {
        const ignored = settings.tuningIgnored.length > 0 ? { ignored: settings.tuningIgnored.join(", ") } : {};
        logger.info(
          "tuning off (SWITCHYARD_TUNING=off): Bun's fetch upstream, the engine's own garbage collection, every request through Elysia",
          ignored,
        );
        return;
      }
      if (settings.heapLimitMb > 0 && !governor) governor = startMemoryGovernor(settings.heapLimitMb);
    },
    stop() {
      governor?.stop();
      upstream.close();
    },
    stats: () => governor?.stats(),
  };
}
