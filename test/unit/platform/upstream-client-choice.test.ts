import { describe, expect, test } from "bun:test";
import { createUpstreamClient } from "../../../src/platform/tuning/upstream-client";
import { UpstreamAbort } from "../../../src/platform/upstream-abort";
import { eventually } from "../../support/spawn";

describe("choosing the upstream client", () => {
  test("fetch is the default choice and sockets is used only when asked for", () => {
    expect(createUpstreamClient("fetch", {}).kind).toBe("fetch");
    const sockets = createUpstreamClient("sockets", {});
    expect(sockets.kind).toBe("sockets");
    sockets.close();
  });

  test("with tuning off it is fetch, whatever the kind asked for", () => {
    expect(createUpstreamClient("sockets", { tuning: "off" }).kind).toBe("fetch");
    const on = createUpstreamClient("sockets", { tuning: "on" });
    expect(on.kind).toBe("sockets");
    on.close();
  });

  test("an http:// proxy keeps the socket client; an https:// HTTPS_PROXY goes to fetch", () => {
    const s = createUpstreamClient("sockets", { proxy: { httpsProxy: "http://proxy.local:3128", httpProxy: "http://proxy.local:3128" } });
    expect(s.kind).toBe("sockets");
    s.close();
    expect(createUpstreamClient("sockets", { proxy: { httpsProxy: "https://proxy.local:3129" } }).kind).toBe("fetch");
  });

  test("both clients cancel a request through the gateway's UpstreamAbort (fetch through its signal)", async () => {
    let arrived = 0;
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: async () => {
        arrived++;
        await Bun.sleep(10_000);
        return new Response("too late");
      },
    });
    try {
      for (const kind of ["fetch", "sockets"] as const) {
        const client = createUpstreamClient(kind, {});
        const ua = new UpstreamAbort();
        const pending = client.send(`http://127.0.0.1:${server.port}/`, {}, ua).then(
          () => "resolved",
          (e: unknown) => e,
        );
        const was = arrived;
        expect(await eventually(() => arrived > was, 3_000, 5)).toBe(true);
        const reason = new DOMException("timeout", "TimeoutError");
        ua.abort(reason);
        expect(((await pending) as DOMException).name).toBe("TimeoutError");
        client.close();
      }
    } finally {
      void server.stop(true);
    }
  });
});
