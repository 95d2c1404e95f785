// A self-contained docs page (no CDN: it works offline and inside the binary) rendered from the served
// OpenAPI document, and the error reference that every error's doc_url points into.
import { Elysia } from "elysia";
import { ERROR_DESCRIPTIONS, ERROR_TABLE, type ErrorCode } from "./errors";

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);
const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${esc(title)}</title><style>body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2em auto;padding:0 1em}code{background:#f3f3f3;padding:0 .3em}table{border-collapse:collapse}td,th{border-bottom:1px solid #ddd;padding:.3em .6em;text-align:left;vertical-align:top}</style></head><body>${body}</body></html>`;

function errorsPage(): string {
  const rows = (Object.keys(ERROR_TABLE) as ErrorCode[])
    .map(
      (c) =>
        `<tr id="${c}"><td><code>${c}</code></td><td>${ERROR_TABLE[c].status}</td><td><code>${ERROR_TABLE[c].type}</code></td><td>${esc(ERROR_DESCRIPTIONS[c])}</td></tr>`,
    )
    .join("");
  return page(
    "Switchyard errors",
    `<h1>Error reference</h1><p>Every error has the body <code>{"error": {"message", "type", "param", "code", "doc_url", "retryable"}}</code>; <code>/v1/messages</code> answers in Anthropic's shape instead.</p><table><tr><th>code</th><th>status</th><th>type</th><th>meaning</th></tr>${rows}</table>`,
  );
}

export interface Spec {
  paths?: Record<string, Record<string, { summary?: string; tags?: string[]; responses?: Record<string, unknown> }>>;
}

function docsPage(spec: Spec): string {
  const rows: string[] = [];
  for (const [path, ops] of Object.entries(spec.paths ?? {}))
    for (const [method, op] of Object.entries(ops))
      rows.push(
        `<tr><td><code>${method.toUpperCase()}</code></td><td><code>${esc(path)}</code></td><td>${esc(op.summary ?? "")}</td><td>${esc(Object.keys(op.responses ?? {}).join(" "))}</td></tr>`,
      );
  return page(
    "Switchyard API",
    `<h1>Switchyard API</h1><p>The full machine-readable description, with every management response body, is <a href="/openapi.json">/openapi.json</a>; errors are listed at <a href="/docs/errors">/docs/errors</a>.</p><table><tr><th>method</th><th>path</th><th>summary</th><th>statuses</th></tr>${rows.join("")}</table>`,
  );
}

export function docsRoutes(getSpec: () => Promise<Spec>) {
  const errors = errorsPage();
  let docs: string | undefined;
  const html = (s: string) => new Response(s, { headers: { "content-type": "text/html; charset=utf-8" } });
  return new Elysia({ name: "docs" })
    .get("/docs/errors", () => html(errors), { detail: { hide: true } })
    .get(
      "/docs",
      async () => {
        if (!docs) {
          docs = docsPage(await getSpec());
        }
        return html(docs);
      },
      { detail: { hide: true } },
    );
}
