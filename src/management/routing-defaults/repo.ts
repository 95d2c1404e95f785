// Stored routing defaults: one row per workspace; a null column means "not set" (built-in default).
import { eq } from "drizzle-orm";
import type { Database, Orm } from "../../platform/db/database";
import type { DataPolicy } from "../../catalog/types";
import type { Optimize, Percentile, WorkspaceRoutingDefaults } from "../../routing/types";

export type RoutingDefaultsRaw = typeof import("../../platform/db/schema-sqlite").routingDefaults.$inferSelect;

export interface StoredRoutingDefaults {
  defaults: WorkspaceRoutingDefaults;
  updatedAt: number;
}

/** A patch: a field set to null is cleared, an absent field is left alone. */
export type RoutingDefaultsPatch = { [K in keyof WorkspaceRoutingDefaults]?: WorkspaceRoutingDefaults[K] | null };

export function fromRaw(r: RoutingDefaultsRaw): StoredRoutingDefaults {
  const d: WorkspaceRoutingDefaults = {};
  if (r.optimize !== null) d.optimize = r.optimize as Optimize;
  if (r.dataPolicy !== null) d.data_policy = r.dataPolicy as DataPolicy;
  if (r.allowFallbacks !== null) d.allow_fallbacks = r.allowFallbacks;
  if (r.maxFallbackAttempts !== null) d.max_fallback_attempts = r.maxFallbackAttempts;
  if (r.providers !== null) d.providers = JSON.parse(r.providers) as string[];
  if (r.excludeProviders !== null) d.exclude_providers = JSON.parse(r.excludeProviders) as string[];
  if (r.minThroughputTps !== null) d.min_throughput_tps = r.minThroughputTps;
  if (r.ttftPercentile !== null) d.ttft_percentile = r.ttftPercentile as Percentile;
  if (r.throughputPercentile !== null) d.throughput_percentile = r.throughputPercentile as Percentile;
  if (r.minSuccessRate !== null) d.min_success_rate = r.minSuccessRate;
  if (r.prefer !== null) d.prefer = JSON.parse(r.prefer) as string[];
  if (r.onlyByok !== null) d.only_byok = r.onlyByok;
  if (r.onlyPlatform !== null) d.only_platform = r.onlyPlatform;
  if (r.requireParameters !== null) d.require_parameters = r.requireParameters;
  return { defaults: d, updatedAt: r.updatedAt };
}

const json = (v: string[] | null | undefined) => (v === undefined ? undefined : v === null ? null : JSON.stringify(v));

export function routingDefaultsRepo(db: Database) {
  const t = db.t.routingDefaults;
  // Built once, on first use (after migrations): the in-memory store re-reads every row every 2 s.
  let allQuery: ReturnType<typeof buildAll> | undefined;
  const buildAll = () => db.orm.select().from(t).prepare();
  return {
    async get(workspaceId: string): Promise<StoredRoutingDefaults | undefined> {
      const rows = await db.orm.select().from(t).where(eq(t.workspaceId, workspaceId)).limit(1);
      return rows[0] && fromRaw(rows[0]);
    },
    async all(): Promise<Map<string, StoredRoutingDefaults>> {
      const rows = await (allQuery ??= buildAll()).execute();
      return new Map(rows.map((r) => [r.workspaceId, fromRaw(r)]));
    },
    /** Applies the patch inside the caller's transaction; returns the stored row afterwards. */
    async patch(o: Orm, workspaceId: string, p: RoutingDefaultsPatch, now: number): Promise<StoredRoutingDefaults> {
      const cols = {
        optimize: p.optimize,
        dataPolicy: p.data_policy,
        allowFallbacks: p.allow_fallbacks,
        maxFallbackAttempts: p.max_fallback_attempts,
        providers: json(p.providers),
        excludeProviders: json(p.exclude_providers),
        minThroughputTps: p.min_throughput_tps,
        ttftPercentile: p.ttft_percentile,
        throughputPercentile: p.throughput_percentile,
        minSuccessRate: p.min_success_rate,
        prefer: json(p.prefer),
        onlyByok: p.only_byok,
        onlyPlatform: p.only_platform,
        requireParameters: p.require_parameters,
      };
      const set: Partial<RoutingDefaultsRaw> = { updatedAt: now };
      for (const [k, v] of Object.entries(cols)) if (v !== undefined) (set as Record<string, unknown>)[k] = v;
      const insert: RoutingDefaultsRaw = {
        workspaceId,
        optimize: null,
        dataPolicy: null,
        allowFallbacks: null,
        maxFallbackAttempts: null,
        providers: null,
        excludeProviders: null,
        minThroughputTps: null,
        ttftPercentile: null,
        throughputPercentile: null,
        minSuccessRate: null,
        prefer: null,
        onlyByok: null,
        onlyPlatform: null,
        requireParameters: null,
        ...set,
        updatedAt: now,
      };
      const rows = await o.insert(t).values(insert).onConflictDoUpdate({ target: t.workspaceId, set }).returning();
      return fromRaw(rows[0]!);
    },
    async clear(o: Orm, workspaceId: string): Promise<boolean> {
      const rows = await o.delete(t).where(eq(t.workspaceId, workspaceId)).returning({ ws: t.workspaceId });
      return rows.length > 0;
    },
  };
}
export type RoutingDefaultsRepo = ReturnType<typeof routingDefaultsRepo>;
