// The bench's seeded randomness. Hand-written rather than a package: mulberry32 is six lines, and the
// bench's whole point is that one seed gives one run, on every machine and every Bun version.

/** mulberry32: a 32-bit state, uniform floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal draw (Box–Muller; the second value is dropped to keep the stream simple). */
export function normal(random: () => number): number {
  const u = 1 - random(); // (0, 1]: log(0) never happens
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** A log-normal draw with the given median and log-space sigma, from a standard normal z. */
export function lognormal(median: number, sigma: number, z: number): number {
  return median * Math.exp(sigma * z);
}
