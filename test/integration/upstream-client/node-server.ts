// Starts test/support/node-upstream.mjs under `node` (Node's own http server, not Bun's) and stops it.
import { join } from "node:path";
import { ROOT } from "../../support/spawn";

/**
 * A control request on a connection of its own (closed after it), so that it never takes, or leaves, a
 * connection in a pool the clients under test use (Bun's fetch has one pool per process).
 */
export async function control(port: number, path: string): Promise<string> {
  const done = Promise.withResolvers<string>();
  let text = "";
  await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      open: (s) => void s.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n`),
      data: (_s, d) => void (text += d.toString()),
      close: () => done.resolve(text.slice(text.indexOf("\r\n\r\n") + 4)),
      error: (_s, err) => done.reject(err),
    },
  });
  return done.promise;
}

export interface NodeServer {
  port: number;
  /** http://127.0.0.1:port */
  url: string;
  stats(): Promise<{ connections: number; requests: number; abandoned: number }>;
  /** Lets the SSE stream `id` go on past its first event. */
  release(id: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startNodeServer(deadlineMs = 10_000): Promise<NodeServer> {
  const proc = Bun.spawn(["node", join(ROOT, "test/support/node-upstream.mjs")], { stdout: "pipe", stderr: "inherit", stdin: "ignore" });
  const reader = proc.stdout.getReader();
  const timer = setTimeout(() => proc.kill(), deadlineMs);
  let out = "";
  let port: number | undefined;
  while (port === undefined) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`node-upstream.mjs exited before listening: ${out}`);
    out += new TextDecoder().decode(value);
    const m = /\{"port":(\d+)\}/.exec(out);
    if (m) port = Number(m[1]);
  }
  clearTimeout(timer);
  reader.releaseLock();
  const url = `http://127.0.0.1:${port}`;
  return {
    port,
    url,
    stats: async () => JSON.parse(await control(port!, "/stats")) as { connections: number; requests: number; abandoned: number },
    release: async (id) => void (await control(port!, `/release?id=${encodeURIComponent(id)}`)),
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}
