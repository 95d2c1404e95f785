// What the request pipeline needs, injected: catalog, router state, credentials, metering and limits.
// No Elysia here: routes build a CallContext from the HTTP request and call the pipeline.
import type { UpstreamSend } from "../platform/upstream-answer";
import type { Catalog, Endpoint } from "../catalog/types";
import type { HealthStore } from "../routing/health";
import type { WorkspaceRoutingDefaults } from "../routing/types";
import type { RequestRecord } from "../metering/request-record";
import type { Logger } from "../platform/logger";
import type { ApiError } from "../http/errors";
import type { AbortSweeper } from "../platform/abort-sweeper";
import type { ResponseRouteMemory } from "./responses/route-memory";
import type { ResponseStore } from "./responses/store/store";
import type { StickyStore } from "./sticky/store";
import type { StickyState } from "./sticky/route";
import type { CallSpan, Tracing } from "../observability/tracing/types";

export interface ByokLookup {
  /** The workspace's default, enabled BYOK key for the provider, or null (from memory). */
  defaultKeyFor(workspaceId: string, providerId: string): { byokKeyId: string; secret: string } | null;
}

export interface CallContext {
  requestId: string;
  workspaceId: string;
  apiKeyId: string;
  endpoint: Endpoint | "messages";
  /**
   * Fires when the client goes away: the upstream request is aborted. Read it only when needed: for a
   * request served by Bun, the first read makes it (~3 µs; platform/abort-sweeper.ts).
   */
  readonly signal: AbortSignal;
  traceId: string | null;
  userId: string | null;
  tags: string[] | null;
  customFields: Record<string, string> | null;
  /** The client's request headers (read by sticky/session-id.ts for the session's ID). */
  readonly headers?: Headers;
  /** The conversation and the route it is stuck to, set before planning when a route caches cheaply (sticky/route.ts). */
  sticky?: StickyState;
  /** The call's spans, when tracing is on (observability/tracing): the attempt loop reports its attempts to it. */
  span?: CallSpan;
}

/** Who served a call: after a fallback this may differ from the route the reservation was made for. */
export interface ServedBy {
  provider: string;
  byok: boolean;
}

/** An admitted call's reservation against limits; settled with the real cost afterwards. */
export interface Admission {
  /** The served attempt's provider and credential kind decide which budgets the cost counts against. */
  settle(costMicrodollars: number, served: ServedBy): void;
  release(): void;
}

/** A call let through (with the admission that settles its reservation) or refused. */
export type Admitted = { ok: true; admission: Admission } | { ok: false; error: ApiError };

/**
 * Limits applied before any upstream call (credits, budgets, the record queue) and headers added on
 * success. metering/guards.ts provides the implementation.
 */
export interface Guards {
  admit(
    ctx: CallContext,
    /** anyByok: some candidate would use a workspace BYOK key (so the call needs no credit). */
    estimate: { maxCostMicrodollars: number; provider: string; byok: boolean; anyByok: boolean },
  ): Admitted | Promise<Admitted>;
  successHeaders(ctx: CallContext, headers: Record<string, string>): void | Promise<void>;
  /** May this call use a platform credential (credits enforced and the balance not positive: no)? */
  platformAllowed(ctx: CallContext): boolean;
}

export interface InferenceDeps {
  catalog: Catalog;
  health: HealthStore;
  routingDefaults: { get(workspaceId: string): WorkspaceRoutingDefaults | undefined };
  byok: ByokLookup;
  records: { enqueue(record: RequestRecord): unknown };
  guards: Guards;
  logger: Logger;
  /** Sends an upstream request (the client chosen in platform/tuning/upstream-client.ts). */
  send: UpstreamSend;
  /** Timeouts and client departures of upstream requests in flight (platform/abort-sweeper.ts). */
  aborts: AbortSweeper;
  /** SSE keep-alive comment interval during upstream silence. */
  keepAliveMs: number;
  /** Which route served each stored response, for its follow-ups (previous_response_id). */
  responseRoutes: ResponseRouteMemory;
  /** The Responses the gateway keeps (previous_response_id on any route); absent when `responses.store` is false. */
  responseStore?: ResponseStore;
  /** Which route holds each conversation's prompt cache (sticky routing); absent when `routing.sticky_ttl_s` is 0. */
  sticky?: StickyStore;
  /** How long a stream is read for its usage after the client left (default committed-stream.ts CLIENT_GONE_DRAIN_MS). */
  clientGoneDrainMs?: number;
  /** Told when a stream's response opens and when it ends (the switchyard_active_streams gauge). */
  streams?: { opened(): void; closed(): void };
  /** OpenTelemetry traces; absent (and the SDK not loaded) unless an OTLP endpoint is configured. */
  tracing?: Tracing;
}
