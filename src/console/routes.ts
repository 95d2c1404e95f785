// GET /console (the page, its script and stylesheet) and GET / → /console. The page holds no inline
// script, so the policy can be script-src 'self'; the console talks only to this gateway's own API.
import { Elysia } from "elysia";
import { consoleAssets } from "./assets";

export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Switchyard console</title>
<link rel="stylesheet" href="/console/app.css">
<script type="module" src="/console/app.js"></script>
</head>
<body><div id="app"></div></body>
</html>
`;

function asset(body: string, type: string): Response {
  return new Response(body, {
    headers: {
      "content-type": type,
      "content-security-policy": CONSOLE_CSP,
      "x-content-type-options": "nosniff",
      "cache-control": "no-cache",
    },
  });
}

export function consoleRoutes() {
  return new Elysia({ name: "console" })
    .get("/", () => new Response(null, { status: 302, headers: { location: "/console" } }), { detail: { hide: true } })
    .get("/console", () => asset(PAGE, "text/html; charset=utf-8"), { detail: { hide: true } })
    .get("/console/app.js", async () => asset((await consoleAssets()).js, "text/javascript; charset=utf-8"), { detail: { hide: true } })
    .get("/console/app.css", async () => asset((await consoleAssets()).css, "text/css; charset=utf-8"), { detail: { hide: true } });
}
