// Starts test/support/node-upstream.mjs under `node` (Node's own http server, not Bun's) and stops it.
import { join } from "node:path";
import { ROOT } from "../../support/spawn";

export interface NodeServer {
  port: number;
  /** http://127.0.0.1:port */
  url: string;
  stats(): Promise<{ connections: number; requests: number }>;
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
    stats: () =>
      fetch(`${url}/stats`, { proxy: false } as BunFetchRequestInit).then(
        (r) => r.json() as Promise<{ connections: number; requests: number }>,
      ),
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}
