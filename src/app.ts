// createApp(deps): composes the Elysia plugins. No I/O at import time; tests call app.handle().
import { Elysia } from "elysia";
import { openapi } from "@elysiajs/openapi";
import type { Deps } from "./deps";
import { edge, edgeSteps } from "./http/edge";
import { hotRoutes } from "./http/hot-routes";
import { MAX_JSON_DEPTH } from "./http/body";
import { systemRoutes } from "./http/system-routes";
import { metricsRoutes } from "./observability/metrics/routes";
import { docsRoutes, type Spec } from "./http/docs-routes";
import { catalogRoutes } from "./catalog/routes";
import { modelsErrorRenderer, modelsRoutes } from "./catalog/models-routes";
import { chatRoutes } from "./inference/chat/routes";
import { responsesRoutes } from "./inference/responses/routes";
import { responsesStoreRoutes, storeRateClass } from "./inference/responses/store/routes";
import { messagesErrorRenderer, messagesRoutes } from "./inference/messages/routes";
import { countTokensRoutes } from "./inference/messages/count-tokens";
import { managementRoutes } from "./management/routes";
import { rateClassFor } from "./management/route-table";
import { consoleRoutes } from "./console/routes";
import { builtinClass, rateCheck, rateLimit, type PeerAddress } from "./http/rate-limit";

export const VERSION = "0.1.0";

export function createApp(deps: Deps) {
  const inferenceRoutes = { inference: deps.inference, keys: deps.keys, maxBodyBytes: deps.config.maxRequestBodyBytes.inference };
  const getSpec = (): Promise<Spec> => app.handle(new Request("http://local/openapi.json")).then((r) => r.json() as Promise<Spec>);
  const steps = edgeSteps(deps.logger, [messagesErrorRenderer, modelsErrorRenderer]);
  const limit = rateCheck(
    deps.limiter,
    (method, route) => builtinClass(method, route) ?? storeRateClass(method, route) ?? rateClassFor(method, route) ?? null,
    deps.config.trustedProxies,
    deps.keys,
  );
  let server: { requestIP(r: Request): { address: string } | null } | null = null;
  const peer: PeerAddress = (request) => server?.requestIP(request)?.address ?? "unknown";
  // With tuning on, the inference POSTs are served from Bun's route table ahead of Elysia's (hot-routes.ts:
  // why); with it off, every request goes through Elysia, whose inference routes admit requests the same way.
  const inference = [
    chatRoutes(inferenceRoutes),
    responsesRoutes(inferenceRoutes),
    messagesRoutes(inferenceRoutes),
    countTokensRoutes(inferenceRoutes),
  ];
  const hot = deps.tuning.hotRoutes
    ? {
        routes: hotRoutes(
          inference.map((r) => r.hot),
          steps,
          limit,
        ),
      }
    : {};
  // normalize off: the body schemas say what is accepted (unknown gateway fields are a 400, not silently
  // dropped), and the per-request object mirroring it costs is avoided.
  // The server's own cap (a bare 413 before any route runs) sits 1 MiB above the largest route limit, so
  // the routes' counted reads answer with the envelope first (http/body.ts).
  const limits = deps.config.maxRequestBodyBytes;
  const maxRequestBodySize = Math.max(limits.inference, limits.management) + 1024 * 1024;
  const app = new Elysia({ normalize: false, serve: { ...hot, maxRequestBodySize } })
    .use(edge(steps))
    .use(rateLimit(limit, peer))
    .use(
      openapi({
        provider: null,
        specPath: "/openapi.json",
        documentation: {
          info: {
            title: "Switchyard",
            version: VERSION,
            description: [
              "Self-hostable model routing gateway: OpenAI- and Anthropic-compatible inference, a public catalog, workspace management.",
              "Every error is `{error: {message, type, param, code, doc_url, retryable}}` (see /docs/errors); /v1/messages, and /v1/models for a client that sends anthropic-version, answer in Anthropic's error shape.",
              "A call in a route's own dialect passes through as sent (Messages to anthropic routes, Responses to Responses-API routes, chat to OpenAI-compatible routes; model replaced, anthropic-version/anthropic-beta/OpenAI-Beta forwarded) and its answer comes back as the provider wrote it with routing_metadata added (JSON: last field; Messages stream: message_delta; Responses stream: response.completed's response); Messages and Responses provider errors keep the provider's status and body (but 401/403 on the gateway's credential: 502); previous_response_id replays the response the gateway kept (config responses.store, on by default; GET/DELETE /v1/responses/{id}) on any route; one it did not keep goes to the Responses-API route that stored it (remembered response_route_ttl_hours), else 400.",
              "Other pairs are translated through the chat model, keeping reasoning and its signatures (chat: reasoning_details and reasoning_content; Messages: thinking blocks; Responses: reasoning items; another provider family's state rides as a swy1. signature or encrypted_content, and each provider gets back only its own), effort (reasoning_effort, reasoning.effort, thinking, output_config.effort, Gemini thinkingConfig), cache_control toward Anthropic, citations as each dialect's annotations and cache usage in each dialect's fields; what a wire cannot carry is named in routing_metadata.warnings (docs/translation.md). Every model serves every endpoint: Responses-only models are reached over the Responses API by chat and Messages clients.",
              "/v1/messages/count_tokens is counted by an Anthropic route when the model has one (its answer as it came), else estimated with o200k_base; the x-switchyard-token-count header says which (provider or estimate); counts are not charged.",
              "Choices beyond the API document (also in the README): chat streams always end with a usage chunk, a routing_metadata chunk and [DONE];",
              "routing_metadata adds cost.microdollars, attempts[], the served route's ttft_ms_estimate and throughput_tps_estimate (what the router ranked on), exploration/sticky (why it led) and gateway_overhead_ms (the gateway's own time, also in the Server-Timing header: gateway;dur, upstream;dur); GET /metrics (scope metrics:read, or public by config) serves Prometheus metrics; traces go over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set; GET /v1/routing/health (scope routing:read) shows every route's estimates, samples, circuit and last failure; inference needs a valid key and no scope; lists are {<plural>: [...], count};",
              "writes answer 202 with propagation_status 'pending' in shared (Redis) mode; rate limits are token buckets per class (README): key_creation per workspace, unknown keys per client address;",
              "inference bodies are read as JSON whatever their Content-Type; the API key is checked before any body is read (401 first),",
              `bodies are limited while they stream in (config max_request_body_mb: 20 MB inference, 1 MB management; 413 request_too_large), nest at most ${MAX_JSON_DEPTH} levels (400 invalid_request),`,
              "and no string in a body, query or path parameter may hold NUL (400 invalid_parameter naming it); a malformed or invalid body takes no rate-limit token (but a key's first call on an instance is limited by address before its lookup).",
              "With credits enforced, a platform-key call holds its worst-case cost (the final upstream body's, extensions merged, times n) against the balance until it settles, so concurrent calls overdraw by at most one call's worst case;",
              "on platform-key calls, service_tier other than default/standard_only, web_search_options and provider-run tools are dropped with an unsupported_parameter warning (prices are standard-tier).",
              "While the database is unreachable inference serves from memory (keys already seen, settings, balances, budgets) and queues its records;",
              "a call that cannot be decided without it (a key never seen, a record backlog) answers 503 service_unavailable with Retry-After.",
            ].join(" "),
          },
          components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
        },
      }),
    )
    .use(systemRoutes(deps))
    .use(metricsRoutes({ metrics: deps.metrics, keys: deps.keys, public: deps.config.metrics.public }))
    .use(catalogRoutes(deps.catalog))
    .use(modelsRoutes({ catalog: deps.catalog, keys: deps.keys }))
    .use(inference[0]!.plugin(limit, peer))
    .use(inference[1]!.plugin(limit, peer))
    .use(inference[2]!.plugin(limit, peer))
    .use(inference[3]!.plugin(limit, peer))
    .use(responsesStoreRoutes({ keys: deps.keys, store: deps.responseStore }))
    .use(managementRoutes(deps.management, deps.config.maxRequestBodyBytes.management, deps.health))
    .use(docsRoutes(getSpec))
    .use(consoleRoutes())
    .onStart(({ server: s }) => {
      server = s;
    });
  return app;
}
export type App = ReturnType<typeof createApp>;
