import { describe, expect, test } from "bun:test";
import { createUpstreamClient } from "../../../src/platform/http1/upstream-fetch";

describe("choosing the upstream client", () => {
  test("fetch is the default choice and sockets is used only when asked for", () => {
    expect(createUpstreamClient("fetch", {}).kind).toBe("fetch");
    const sockets = createUpstreamClient("sockets", {});
    expect(sockets.kind).toBe("sockets");
    sockets.close();
  });

  test("an HTTP proxy in the environment sends everything through fetch, which speaks to proxies", () => {
    for (const v of ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"]) {
      expect(createUpstreamClient("sockets", { [v]: "http://proxy.local:3128" }).kind).toBe("fetch");
    }
  });
});
