// The proxy variables as config reads them (once, lowercase spelling first) and NO_PROXY's matching rules.
import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../../src/config/load";
import { bypasses, parseNoProxy, proxyChooser } from "../../../src/platform/tuning/http1/proxy";
import { createUpstreamClient } from "../../../src/platform/tuning/upstream-client";

const load = (env: Record<string, string>) => loadConfig({ DATABASE_URL: "sqlite::memory:", ...env });

describe("proxy variables in config", () => {
  test("none set: no proxy settings at all (the clients then pay nothing for the feature)", () => {
    expect(load({}).upstreamProxy).toBeUndefined();
    expect(load({ NO_PROXY: "localhost" }).upstreamProxy).toBeUndefined();
  });

  test("uppercase and lowercase spellings; the lowercase one wins when both are set", () => {
    expect(load({ HTTPS_PROXY: "http://a:3128", HTTP_PROXY: "http://b:3128", NO_PROXY: "x" }).upstreamProxy).toEqual({
      httpsProxy: "http://a:3128",
      httpProxy: "http://b:3128",
      noProxy: "x",
    });
    expect(load({ https_proxy: "http://low:1", HTTPS_PROXY: "http://up:1", no_proxy: "low", NO_PROXY: "up" }).upstreamProxy).toEqual({
      httpsProxy: "http://low:1",
      noProxy: "low",
    });
    expect(load({ http_proxy: "http://low:2" }).upstreamProxy).toEqual({ httpProxy: "http://low:2" });
  });

  test("a proxy without a scheme is http://; a --flag overrides the environment", () => {
    expect(load({ HTTP_PROXY: "proxy.corp:8080" }).upstreamProxy?.httpProxy).toBe("http://proxy.corp:8080");
    expect(loadConfig({ DATABASE_URL: "sqlite::memory:" }, { HTTP_PROXY: "flag.corp:8080" }).upstreamProxy?.httpProxy).toBe(
      "http://flag.corp:8080",
    );
    expect(
      loadConfig({ DATABASE_URL: "sqlite::memory:", HTTPS_PROXY: "http://env:1" }, { HTTPS_PROXY: "http://flag:1" }).upstreamProxy
        ?.httpsProxy,
    ).toBe("http://flag:1");
  });

  test("another scheme or a path is refused, with the credentials masked", () => {
    expect(() => load({ HTTPS_PROXY: "socks5://u:secret@proxy:1080" })).toThrow(ConfigError);
    expect(() => load({ HTTPS_PROXY: "socks5://u:secret@proxy:1080" })).not.toThrow(/secret/);
    expect(() => load({ HTTP_PROXY: "http://proxy:3128/some/path" })).toThrow(/HTTP_PROXY must be an http:\/\/ or https:\/\/ proxy URL/);
  });
});

describe("NO_PROXY", () => {
  const matches = (list: string, host: string, port = 443) => {
    const e = parseNoProxy(list);
    return e === "all" || bypasses(e, host, port);
  };

  test("names match themselves and their subdomains, with or without a leading dot or *.", () => {
    for (const list of ["example.com", ".example.com", "*.example.com"]) {
      expect(matches(list, "api.example.com")).toBe(true);
      expect(matches(list, "a.b.example.com")).toBe(true);
      expect(matches(list, "badexample.com")).toBe(false);
    }
    expect(matches("example.com", "example.com")).toBe(true);
    expect(matches("EXAMPLE.com", "Api.Example.COM.")).toBe(true);
  });

  test("a comma (or space) list; host:port matches that port only", () => {
    expect(matches("a.test, b.test  c.test", "c.test")).toBe(true);
    expect(matches("a.test:8443", "a.test", 8443)).toBe(true);
    expect(matches("a.test:8443", "a.test", 443)).toBe(false);
  });

  test("IP literals match exactly, IPv6 bare or bracketed (with a port)", () => {
    expect(matches("10.0.0.1", "10.0.0.1")).toBe(true);
    expect(matches("0.0.1", "10.0.0.1")).toBe(false);
    expect(matches("10.0.0.1", "110.0.0.1")).toBe(false);
    expect(matches("::1", "::1")).toBe(true);
    expect(matches("[::1]:8080", "::1", 8080)).toBe(true);
    expect(matches("[::1]:8080", "::1", 80)).toBe(false);
  });

  test("* sends everything straight: no chooser at all", () => {
    expect(parseNoProxy("foo, *")).toBe("all");
    expect(proxyChooser({ httpsProxy: "http://p:1", noProxy: "*" })).toBeNull();
  });

  test("the chooser: HTTPS_PROXY for https targets, HTTP_PROXY for http ones, no fallback between them", () => {
    const choose = proxyChooser({ httpsProxy: "http://u:p%40ss@secure:3128", noProxy: "internal" })!;
    const route = choose({ key: "https://api.test:443", hostname: "api.test", port: 443, tls: true });
    expect(route).toMatchObject({ hostname: "secure", port: 3128, tls: false, authorization: `Basic ${btoa("u:p@ss")}` });
    expect(choose({ key: "http://api.test:80", hostname: "api.test", port: 80, tls: false })).toBeNull();
    expect(choose({ key: "https://x.internal:443", hostname: "x.internal", port: 443, tls: true })).toBeNull();
    expect(proxyChooser({})).toBeNull();
  });
});

describe("choosing the client", () => {
  test("the socket client speaks to http:// proxies; an https:// HTTPS_PROXY is fetch's (no TLS inside TLS on one socket)", () => {
    const plain = createUpstreamClient("sockets", { proxy: { httpsProxy: "http://p:3128", httpProxy: "https://p:3129" } });
    expect(plain.kind).toBe("sockets");
    plain.close();
    expect(createUpstreamClient("sockets", { proxy: { httpsProxy: "https://p:3129" } }).kind).toBe("fetch");
  });
});
