// The floor any Bun proxy pays: Bun.serve + fetch, bodies streamed through untouched, no parsing.
// Env: PORT (0 = any), UPSTREAM (e.g. http://127.0.0.1:9000). Prints {"port":N} once listening.
const upstream = process.env.UPSTREAM ?? "http://127.0.0.1:9000";
const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: "127.0.0.1",
  idleTimeout: 0,
  fetch(req) {
    const url = new URL(req.url);
    return fetch(upstream + url.pathname + url.search, { method: req.method, headers: req.headers, body: req.body });
  },
});
process.stdout.write(JSON.stringify({ port: server.port }) + "\n");
process.on("SIGTERM", () => {
  void server.stop(true);
  process.exit(0);
});
