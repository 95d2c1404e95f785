// The client address used as the discovery rate-limit key. X-Forwarded-For is believed only when the
// immediate peer is a trusted proxy (SWITCHYARD_TRUSTED_PROXIES / config `trusted_proxies`: addresses
// or CIDR ranges); otherwise anyone could pick their own bucket by sending the header. Walking the
// header from the right, trusted hops are skipped and the first untrusted address is the client.

interface Ip {
  v: 4 | 6;
  n: bigint;
}

interface Range {
  v: 4 | 6;
  n: bigint;
  bits: number;
}

export function clientAddress(socketAddress: string, xff: string | null | undefined, trustedProxies: readonly string[]): string {
  const peer = normalize(socketAddress);
  if (!xff || trustedProxies.length === 0) return peer;
  const ranges = parseRanges(trustedProxies);
  if (!isTrusted(peer, ranges)) return peer;
  const hops = xff
    .split(",")
    .map((h) => normalize(h.trim()))
    .filter((h) => h.length > 0);
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!isTrusted(hops[i]!, ranges)) return hops[i]!;
  }
  // Every hop is a trusted proxy: the left-most one is as close to the client as we can tell.
  return hops[0] ?? peer;
}

/** Strips IPv6 brackets, zone IDs and the IPv4-mapped prefix, so "::ffff:10.0.0.1" equals "10.0.0.1". */
function normalize(addr: string): string {
  let a = addr.trim();
  if (a.startsWith("[")) a = a.slice(1, a.indexOf("]") > 0 ? a.indexOf("]") : undefined);
  const zone = a.indexOf("%");
  if (zone >= 0) a = a.slice(0, zone);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  if (mapped) return mapped[1]!;
  return a.toLowerCase();
}

function parseRanges(list: readonly string[]): Range[] {
  const out: Range[] = [];
  for (const entry of list) {
    const [addr, bitsText] = entry.trim().split("/");
    const ip = parseIp(normalize(addr ?? ""));
    if (!ip) continue;
    const max = ip.v === 4 ? 32 : 128;
    const bits = bitsText === undefined ? max : Number(bitsText);
    if (!Number.isInteger(bits) || bits < 0 || bits > max) continue;
    out.push({ v: ip.v, n: ip.n, bits });
  }
  return out;
}

function isTrusted(addr: string, ranges: readonly Range[]): boolean {
  const ip = parseIp(addr);
  if (!ip) return false;
  const max = ip.v === 4 ? 32 : 128;
  return ranges.some((r) => r.v === ip.v && ip.n >> BigInt(max - r.bits) === r.n >> BigInt(max - r.bits));
}

function parseIp(a: string): Ip | null {
  if (/^\d+\.\d+\.\d+\.\d+$/.test(a)) {
    const parts = a.split(".").map(Number);
    if (parts.some((p) => p > 255)) return null;
    return { v: 4, n: parts.reduce((acc, p) => (acc << 8n) | BigInt(p), 0n) };
  }
  return parseIpv6(a);
}

function parseIpv6(a: string): Ip | null {
  if (!a.includes(":")) return null;
  const halves = a.split("::");
  if (halves.length > 2) return null;
  const groups = (s: string): string[] | null => {
    if (s === "") return [];
    const out: string[] = [];
    for (const g of s.split(":")) {
      // An embedded IPv4 tail (::ffff:1.2.3.4 style) is two groups.
      const v4 = parseIp(g);
      if (v4?.v === 4) out.push(((v4.n >> 16n) & 0xffffn).toString(16), (v4.n & 0xffffn).toString(16));
      else if (/^[0-9a-f]{1,4}$/.test(g)) out.push(g);
      else return null;
    }
    return out;
  };
  const left = groups(halves[0]!);
  const right = halves.length === 2 ? groups(halves[1]!) : [];
  if (!left || !right) return null;
  const fill = 8 - left.length - right.length;
  if ((halves.length === 1 && fill !== 0) || fill < 0) return null;
  const all = [...left, ...Array<string>(halves.length === 2 ? fill : 0).fill("0"), ...right];
  return { v: 6, n: all.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n) };
}
