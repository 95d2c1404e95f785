// GET /metrics: the Prometheus text format, on the main port. A key with `metrics:read` is needed unless
// the operator made it public (SWITCHYARD_METRICS_PUBLIC=1 or config metrics.public, for a private network).
import { Elysia } from "elysia";
import type { ApiKeyCache } from "../../auth/key-cache";
import { authenticate } from "../../http/auth";
import type { GatewayMetrics } from "./gateway-metrics";

const SCOPES = ["metrics:read"] as const;

export function metricsRoutes(d: { metrics: GatewayMetrics; keys: ApiKeyCache; public: boolean }) {
  const contentType = d.metrics.registry.contentType;
  return new Elysia({ name: "metrics" }).get(
    "/metrics",
    async ({ request }) => {
      if (!d.public) await authenticate(d.keys, request.headers, SCOPES);
      return new Response(await d.metrics.scrape(), { headers: { "content-type": contentType } });
    },
    {
      detail: {
        summary: "Prometheus metrics (text format 0.0.4)",
        description:
          "Scope (all required): metrics:read; no key at all when SWITCHYARD_METRICS_PUBLIC=1 or config `metrics.public: true`. Calls, upstream attempts, tokens, cost, durations, circuits, the record queue, rate-limit and budget refusals, and the process's default metrics (README: Metrics). Not rate limited.",
        tags: ["system"],
        security: [{ bearer: [] }],
        responses: { 200: { description: "OK", content: { "text/plain": { schema: { type: "string" } } } } },
      },
    },
  );
}
