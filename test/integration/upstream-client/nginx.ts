// nginx (Debian's package) as a real upstream for the client contract: a config, prefix and ports of its
// own in a temp folder, run in the foreground as a child process and stopped by the test. Three servers
// share one set of locations: keep-alive http, http with `keepalive_timeout 0`, and https with a test CA's
// certificate; streamed paths are proxied to the Node origin (node-server.ts), unbuffered.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestCa } from "./tls";

export const NGINX = "/usr/sbin/nginx";
// In CI nginx is installed by .ci/run, so a missing one is a failure there, never a skip.
export const canRunNginx = existsSync(NGINX) || process.env.CI !== undefined;

export interface LogLine {
  connection: number;
  /** The request's place on its connection (1 for the first). */
  requests: number;
  port: number;
  status: number;
  /** nginx gzipped the response. */
  gzipped: boolean;
  uri: string;
}

export interface Nginx {
  /** Keep-alive http, `Connection: close` http, https: base URLs on 127.0.0.1. */
  http: string;
  close: string;
  https: string;
  ports: { http: number; close: number; https: number };
  /** The static JSON body nginx serves at /static/data.json. */
  staticBody: string;
  /** The access log so far: which connection served each request, and its place on that connection. */
  log(): LogLine[];
  stop(): Promise<void>;
}

async function freePorts(n: number): Promise<number[]> {
  const held = Array.from({ length: n }, () => Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } }));
  const ports = held.map((l) => l.port);
  for (const l of held) l.stop(true);
  return ports;
}

function config(dir: string, ca: TestCa, nodePort: number, p: { http: number; close: number; https: number }): string {
  const proxied = `proxy_pass http://node; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_buffering off;`;
  writeFileSync(
    join(dir, "locations.conf"),
    `root ${join(dir, "www")};
location /static/ { }
location = /error/404 { default_type application/json; return 404 '{"error":{"message":"no such model"}}'; }
location = /error/503 { default_type application/json; return 503 '{"error":{"message":"overloaded"}}'; }
location /sse { ${proxied} }
location /chunked { ${proxied} }
location /release { ${proxied} }
`,
  );
  const temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((t) => `${t}_temp_path ${join(dir, "tmp", t)};`).join("\n  ");
  return `daemon off;
master_process off;
worker_processes 1;
pid ${join(dir, "nginx.pid")};
error_log ${join(dir, "error.log")} warn;
events { worker_connections 256; }
http {
  types { application/json json; }
  default_type application/octet-stream;
  log_format conn '$connection $connection_requests $server_port $status $gzip_ratio $request_uri';
  access_log ${join(dir, "access.log")} conn;
  ${temp}
  gzip on;
  gzip_types application/json text/event-stream;
  gzip_min_length 20;
  gzip_proxied any;
  keepalive_timeout 30s;
  keepalive_requests 1000;
  upstream node { server 127.0.0.1:${nodePort}; keepalive 4; }
  server { listen 127.0.0.1:${p.http}; include ${join(dir, "locations.conf")}; }
  server { listen 127.0.0.1:${p.close}; keepalive_timeout 0; include ${join(dir, "locations.conf")}; }
  server {
    listen 127.0.0.1:${p.https} ssl;
    ssl_certificate ${ca.certFile};
    ssl_certificate_key ${ca.keyFile};
    include ${join(dir, "locations.conf")};
  }
}
`;
}

export async function startNginx(ca: TestCa, nodePort: number, deadlineMs = 10_000): Promise<Nginx> {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-nginx-"));
  mkdirSync(join(dir, "www", "static"), { recursive: true });
  mkdirSync(join(dir, "tmp"));
  const staticBody = JSON.stringify({
    object: "list",
    data: Array.from({ length: 40 }, (_, i) => ({ id: `model-${i}`, object: "model", owned_by: "nginx" })),
  });
  writeFileSync(join(dir, "www", "static", "data.json"), staticBody);
  const [http, close, https] = (await freePorts(3)) as [number, number, number];
  const ports = { http, close, https };
  writeFileSync(join(dir, "nginx.conf"), config(dir, ca, nodePort, ports));
  const proc = Bun.spawn([NGINX, "-p", dir, "-c", join(dir, "nginx.conf"), "-e", join(dir, "error.log")], {
    stdout: "ignore",
    stderr: "pipe",
    stdin: "ignore",
  });
  const errors = () => (existsSync(join(dir, "error.log")) ? readFileSync(join(dir, "error.log"), "utf8") : "");
  const until = Date.now() + deadlineMs;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`nginx exited (${proc.exitCode}): ${await new Response(proc.stderr).text()} ${errors()}`);
    const up = await fetch(`http://127.0.0.1:${http}/static/data.json`, { proxy: false } as BunFetchRequestInit).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > until) throw new Error(`nginx did not answer within ${deadlineMs} ms: ${errors()}`);
    await Bun.sleep(25);
  }
  return {
    http: `http://127.0.0.1:${http}`,
    close: `http://127.0.0.1:${close}`,
    https: `https://localhost:${https}`,
    ports,
    staticBody,
    log: () =>
      readFileSync(join(dir, "access.log"), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => {
          const [connection, requests, port, status, ratio, uri] = line.split(" ");
          return {
            connection: Number(connection),
            requests: Number(requests),
            port: Number(port),
            status: Number(status),
            gzipped: ratio !== "-",
            uri: uri ?? "",
          };
        }),
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}
