import { describe, expect, test } from "bun:test";
import { clientAddress } from "../../../src/limits/client-address";

describe("clientAddress", () => {
  test("without trusted proxies, X-Forwarded-For is ignored", () => {
    expect(clientAddress("203.0.113.9", "1.1.1.1", [])).toBe("203.0.113.9");
    expect(clientAddress("203.0.113.9", null, [])).toBe("203.0.113.9");
  });

  test("a peer that is not a trusted proxy cannot choose its address", () => {
    expect(clientAddress("203.0.113.9", "1.1.1.1", ["10.0.0.1"])).toBe("203.0.113.9");
  });

  test("behind a trusted proxy, the right-most untrusted hop is the client", () => {
    expect(clientAddress("10.0.0.1", "198.51.100.7", ["10.0.0.1"])).toBe("198.51.100.7");
    // A client-supplied (spoofed) left part is ignored: the proxy appended the real peer on the right.
    expect(clientAddress("10.0.0.1", "6.6.6.6, 198.51.100.7", ["10.0.0.1"])).toBe("198.51.100.7");
    // Chains of trusted proxies are skipped; CIDR ranges work.
    expect(clientAddress("10.0.0.1", "198.51.100.7, 10.1.2.3", ["10.0.0.0/8"])).toBe("198.51.100.7");
    // All hops trusted: the left-most.
    expect(clientAddress("10.0.0.1", "10.9.9.9, 10.1.1.1", ["10.0.0.0/8"])).toBe("10.9.9.9");
    // Trusted peer without the header: the peer itself.
    expect(clientAddress("10.0.0.1", undefined, ["10.0.0.1"])).toBe("10.0.0.1");
  });

  test("IPv6, IPv4-mapped addresses and brackets", () => {
    expect(clientAddress("::ffff:10.0.0.1", "198.51.100.7", ["10.0.0.1"])).toBe("198.51.100.7");
    expect(clientAddress("::1", "2001:db8::42", ["::1"])).toBe("2001:db8::42");
    expect(clientAddress("fd00::5", "[2001:DB8::42]", ["fd00::/8"])).toBe("2001:db8::42");
    expect(clientAddress("fe80::1", "2001:db8::42", ["fd00::/8"])).toBe("fe80::1");
    expect(clientAddress("::ffff:203.0.113.9", null, [])).toBe("203.0.113.9");
  });

  test("garbage in the trusted list or the header is not trusted", () => {
    expect(clientAddress("10.0.0.1", "198.51.100.7", ["not-an-ip", "10.0.0.0/99"])).toBe("10.0.0.1");
    expect(clientAddress("10.0.0.1", "unknown", ["10.0.0.1"])).toBe("unknown");
  });
});
