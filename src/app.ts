// createApp(deps): composes the Elysia plugins. No I/O at import time; tests call app.handle().
import { Elysia } from "elysia";
import { openapi } from "@elysiajs/openapi";
import type { Deps } from "./deps";
import { edge } from "./http/edge";
import { systemRoutes } from "./http/system-routes";
import { docsRoutes, type Spec } from "./http/docs-routes";

export const VERSION = "0.1.0";

export function createApp(deps: Deps) {
  const app: Elysia = new Elysia()
    .use(edge(deps.logger))
    .use(
      openapi({
        provider: null,
        specPath: "/openapi.json",
        documentation: {
          info: {
            title: "Switchyard",
            version: VERSION,
            description:
              "Self-hostable model routing gateway. OpenAI- and Anthropic-compatible inference, public catalog, workspace management. Errors: see /docs/errors.",
          },
          components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
        },
      }),
    )
    .use(systemRoutes(deps))
    .use(docsRoutes(() => app.handle(new Request("http://local/openapi.json")).then((r) => r.json() as Promise<Spec>)));
  return app;
}
export type App = ReturnType<typeof createApp>;
