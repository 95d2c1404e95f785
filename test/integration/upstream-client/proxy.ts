// A forward proxy for the tests (node:net): CONNECT tunnels for https targets, and absolute-form requests
// for http ones passed on as they are (servers accept absolute-form). Each connection's first line is
// recorded, with the Proxy-Authorization it carried, so a test can tell what went through it.
import net from "node:net";
import tls from "node:tls";

export interface Seen {
  line: string;
  authorization: string | null;
}

export interface TestProxy {
  url: string;
  seen: Seen[];
  stop(): Promise<void>;
}

/** "localhost" is dialled as 127.0.0.1: the test servers listen on IPv4 only. */
const dial = (host: string) => (host === "localhost" ? "127.0.0.1" : host.replace(/^\[|\]$/g, ""));

/** `tls`: an https:// proxy (TLS between the client and the proxy) with this certificate. */
export async function startProxy(opts: { tls?: { cert: string; key: string } } = {}): Promise<TestProxy> {
  const seen: Seen[] = [];
  const sockets = new Set<net.Socket>();
  const serve = (client: net.Socket) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => {});
    let buffered = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      buffered = Buffer.concat([buffered, d]);
      const end = buffered.indexOf("\r\n\r\n");
      if (end < 0) return;
      client.off("data", onData);
      const head = buffered.subarray(0, end).toString("latin1");
      const [line = "", ...fields] = head.split("\r\n");
      const auth = fields.find((f) => /^proxy-authorization:/i.test(f));
      seen.push({ line, authorization: auth ? auth.slice(auth.indexOf(":") + 1).trim() : null });
      const [method = "", target = ""] = line.split(" ");
      const connect = method === "CONNECT";
      const where = connect ? new URL(`http://${target}`) : new URL(target);
      const upstream = net.connect(Number(where.port || 80), dial(where.hostname), () => {
        if (connect) client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        else upstream.write(buffered);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      sockets.add(upstream);
      upstream.on("close", () => (sockets.delete(upstream), client.destroy()));
      upstream.on("error", () => client.destroy());
      client.on("close", () => upstream.destroy());
    };
    client.on("data", onData);
  };
  const server = opts.tls ? tls.createServer(opts.tls, serve) : net.createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: opts.tls ? `https://localhost:${port}` : `http://127.0.0.1:${port}`,
    seen,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
