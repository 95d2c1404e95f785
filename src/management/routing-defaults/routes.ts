// Routing defaults: GET the effective values, PATCH any subset (null clears a field), DELETE clears all.
// The store is updated before the answer, so the next request through this process routes with it.
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import type { Elysia } from "elysia";
import { ApiError } from "../../http/errors";
import { OPTIMIZE_STRATEGIES, PERCENTILES } from "../../routing/types";
import { MAX_FALLBACK_ATTEMPTS } from "../../routing/defaults";
import type { AuditWriter, Transact } from "../audit/repo";
import { mount, type Mounting } from "../mount";
import type { Catalog } from "../../catalog/types";
import type { ManagementEvents } from "../events";
import type { RoutingDefaultsStore } from "./store";
import { writeOutcome, type PropagationStatus } from "../propagation";
import { check, iso, oneOf } from "../validate";
import { Iso, Propagation } from "../response-schemas";
import type { RoutingDefaultsPatch, RoutingDefaultsRepo } from "./repo";

/** `expected` names the accepted values in error messages; the inner schema's description says what the field means (OpenAPI). */
const nullable = <T extends TSchema>(s: T, expected = s.description ?? "a value") =>
  Type.Optional(Type.Union([s, Type.Null()], { description: `${expected}, or null to reset it` }));
const providerList = (description = "a list of provider IDs") =>
  Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100, description });
const ProviderList = providerList();
const boolean = (meaning: string) => nullable(Type.Boolean({ description: meaning }), "a boolean");
const percentile = (of: string) =>
  nullable(
    oneOf(PERCENTILES, `Which estimate ${of} is compared against: p50 (the median, default) or p95 (the pessimistic end).`),
    "one of p50, p95",
  );

export const RoutingDefaultsPatchBody = Type.Object(
  {
    optimize: nullable(oneOf(OPTIMIZE_STRATEGIES)),
    data_policy: nullable(oneOf(["none", "no_training", "zdr"] as const)),
    allow_fallbacks: nullable(Type.Boolean({ description: "a boolean" })),
    max_fallback_attempts: nullable(Type.Integer({ minimum: 1, maximum: MAX_FALLBACK_ATTEMPTS, description: "an integer from 1 to 19" })),
    providers: nullable(ProviderList),
    exclude_providers: nullable(ProviderList),
    min_throughput_tps: nullable(
      Type.Number({
        minimum: 0,
        description: "Floor on a route's expected output tokens per second (at throughput_percentile); default none.",
      }),
      "a number at least 0",
    ),
    ttft_percentile: percentile("max_ttft_ms"),
    throughput_percentile: percentile("min_throughput_tps"),
    min_success_rate: nullable(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description: "Floor on a route's recent success rate, 0..1 (routes not yet measured pass); default none.",
      }),
      "a number from 0 to 1",
    ),
    prefer: nullable(
      providerList("Catalog providers favoured when routes are otherwise close: a soft preference, never a filter; default none."),
      "a list of provider IDs",
    ),
    only_byok: boolean("Only routes paid with the workspace's own BYOK keys; default false."),
    only_platform: boolean("Only routes paid with the platform's keys; default false (at most one of only_byok and only_platform)."),
    require_parameters: boolean(
      "Only routes whose adapter carries every parameter the request uses (nothing dropped or clamped); default false.",
    ),
  },
  { additionalProperties: false },
);

const Providers = Type.Array(Type.String());
/** Every field with its effective value (the built-in default where the workspace set none). */
export const RoutingDefaults = Type.Object({
  workspace_id: Type.String(),
  optimize: oneOf(OPTIMIZE_STRATEGIES),
  data_policy: oneOf(["none", "no_training", "zdr"] as const),
  allow_fallbacks: Type.Boolean(),
  max_fallback_attempts: Type.Integer(),
  providers: Providers,
  exclude_providers: Providers,
  min_throughput_tps: Type.Union([Type.Number(), Type.Null()], { description: "null: no floor" }),
  ttft_percentile: oneOf(PERCENTILES),
  throughput_percentile: oneOf(PERCENTILES),
  min_success_rate: Type.Union([Type.Number(), Type.Null()], { description: "null: no floor" }),
  prefer: Providers,
  only_byok: Type.Boolean(),
  only_platform: Type.Boolean(),
  require_parameters: Type.Boolean(),
  updated_at: Type.Union([Iso, Type.Null()], { description: "null while the workspace has set nothing" }),
  propagation_status: Propagation,
});

/** What the routing-defaults routes call: the row, the hot-path store it updates, and who hears of it. */
export interface RoutingDefaultsFeature {
  repo: RoutingDefaultsRepo;
  store: RoutingDefaultsStore;
  catalog: () => Catalog;
  events: Pick<ManagementEvents, "onRoutingDefaultsChanged">;
  /** Shared mode: writes answer 202 (propagation.ts). */
  shared: boolean;
  tx: Transact;
  audit: AuditWriter;
  now: () => number;
}

function render(d: RoutingDefaultsFeature, workspaceId: string, propagation: PropagationStatus): Static<typeof RoutingDefaults> {
  return {
    workspace_id: workspaceId,
    ...d.store.get(workspaceId),
    updated_at: iso(d.store.updatedAt(workspaceId)),
    propagation_status: propagation,
  };
}

/** Provider lists name catalog providers: a typo would otherwise silently exclude nothing. */
function checkProviders(d: RoutingDefaultsFeature, patch: RoutingDefaultsPatch): void {
  const providers = d.catalog().providers;
  for (const field of ["providers", "exclude_providers", "prefer"] as const) {
    (patch[field] ?? []).forEach((id, i) => {
      if (!providers.has(id))
        throw new ApiError("invalid_parameter", `Invalid '${field}[${i}]': unknown provider.`, { param: `${field}[${i}]` });
    });
  }
}

export function routingDefaultsRoutes(app: Elysia, m: Mounting, d: RoutingDefaultsFeature): Elysia {
  mount(app, m, "routing.get", async (c) => ({ status: 200, body: render(d, c.workspaceId, null) }), { response: RoutingDefaults });
  mount(
    app,
    m,
    "routing.update",
    async (c) => {
      const patch = check(RoutingDefaultsPatchBody, c.body) as RoutingDefaultsPatch;
      checkProviders(d, patch);
      const stored = await d.tx(async (o) => {
        const row = await d.repo.patch(o, c.workspaceId, patch, d.now());
        // Checked on the row the patch leaves (either flag may have been stored earlier); throwing rolls the write back.
        if (row.defaults.only_byok && row.defaults.only_platform) {
          throw new ApiError("invalid_parameter", "Invalid 'only_platform': only_byok is set too; at most one of them may be true.", {
            param: "only_platform",
          });
        }
        await d.audit(o, {
          workspaceId: c.workspaceId,
          type: "routing_defaults.updated",
          actorApiKeyId: c.actorId,
          targetId: c.workspaceId,
          data: { changes: patch },
        });
        return row;
      });
      d.store.apply(c.workspaceId, stored);
      d.events.onRoutingDefaultsChanged(c.workspaceId);
      const out = writeOutcome(d.shared, "updated");
      return { status: out.status, body: render(d, c.workspaceId, out.propagationStatus) };
    },
    {
      body: RoutingDefaultsPatchBody,
      response: RoutingDefaults,
      description: "Only the fields present change; null resets a field to its built-in default.",
    },
  );
  mount(
    app,
    m,
    "routing.delete",
    async (c) => {
      await d.tx(async (o) => {
        await d.repo.clear(o, c.workspaceId);
        await d.audit(o, {
          workspaceId: c.workspaceId,
          type: "routing_defaults.deleted",
          actorApiKeyId: c.actorId,
          targetId: c.workspaceId,
        });
      });
      d.store.apply(c.workspaceId, undefined);
      d.events.onRoutingDefaultsChanged(c.workspaceId);
      // docs/contract.md "Management API choices": DELETE answers 200 with the cleared record (202 in shared mode), not 204.
      const out = writeOutcome(d.shared, "updated");
      return { status: out.status, body: render(d, c.workspaceId, out.propagationStatus) };
    },
    { response: RoutingDefaults },
  );
  return app;
}
